package render

import (
	"encoding/xml"
	"fmt"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/report"
)

// JUnit XML (the shape GitHub Actions, GitLab and Jenkins read).

type junitSuites struct {
	XMLName  xml.Name     `xml:"testsuites"`
	Name     string       `xml:"name,attr"`
	Tests    int          `xml:"tests,attr"`
	Failures int          `xml:"failures,attr"`
	Errors   int          `xml:"errors,attr"`
	Skipped  int          `xml:"skipped,attr"`
	Suites   []junitSuite `xml:"testsuite"`
}

type junitSuite struct {
	Name     string      `xml:"name,attr"`
	Tests    int         `xml:"tests,attr"`
	Failures int         `xml:"failures,attr"`
	Errors   int         `xml:"errors,attr"`
	Skipped  int         `xml:"skipped,attr"`
	Cases    []junitCase `xml:"testcase"`
}

type junitCase struct {
	Name      string        `xml:"name,attr"`
	ClassName string        `xml:"classname,attr"`
	Failure   *junitMessage `xml:"failure,omitempty"`
	Skipped   *junitMessage `xml:"skipped,omitempty"`
}

type junitMessage struct {
	Message string `xml:"message,attr"`
	Type    string `xml:"type,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// JUnit renders runs as one <testsuites> with a <testsuite> per run, named
// after its scenario: one <testcase> for the run's verdict and one per
// operation. FAIL is a <failure>, NOT_TESTED a <skipped>, and so is the
// PASS of a run that did not finish (RunFile.Unfinished); an operation
// with a violation fails, one whose execution is unknown is skipped.
func JUnit(runs ...*report.RunFile) []byte {
	all := junitSuites{Name: "agent-harness"}
	for _, f := range runs {
		s := junitSuite{Name: f.ScenarioName()}
		class := "agent-harness." + f.ScenarioName()
		run := junitCase{Name: "verdict", ClassName: class}
		switch f.Verdict {
		case "FAIL":
			run.Failure = &junitMessage{Message: escape.Line(f.Report.VerdictReason), Type: "FAIL", Text: runDetail(f)}
		case "PASS":
			if note := f.Unfinished(); note != "" {
				run.Skipped = &junitMessage{Message: note}
			}
		default:
			run.Skipped = &junitMessage{Message: escape.Line(f.Report.VerdictReason)}
		}
		s.Cases = append(s.Cases, run)
		viol := map[string][]string{}
		for _, v := range f.Report.Violations {
			viol[v.Operation] = append(viol[v.Operation], v.Type+": "+escape.Line(v.Message))
		}
		for _, op := range f.Report.Operations {
			c := junitCase{Name: op.ID + " " + escape.Line(op.Tool), ClassName: class}
			switch {
			case len(viol[op.ID]) > 0:
				c.Failure = &junitMessage{Message: strings.Join(viol[op.ID], "; "), Type: string(op.Outcome),
					Text: fmt.Sprintf("arguments: %s\nattempts: %d, executions: %d, failed attempts: %d", escape.Line(string(op.Arguments)), op.Attempts, op.Executions, op.FailedAttempts)}
			case op.Outcome == "EXECUTION_UNKNOWN":
				c.Skipped = &junitMessage{Message: fmt.Sprintf("%s: whether %s executed is unknown", op.ID, escape.Line(op.Tool))}
			}
			s.Cases = append(s.Cases, c)
		}
		for _, c := range s.Cases {
			s.Tests++
			if c.Failure != nil {
				s.Failures++
			}
			if c.Skipped != nil {
				s.Skipped++
			}
		}
		all.Tests += s.Tests
		all.Failures += s.Failures
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	out, err := xml.MarshalIndent(all, "", "  ")
	if err != nil {
		panic(err) // strings and ints always encode
	}
	return append(append([]byte(xml.Header), out...), '\n')
}

// runDetail lists a failed run's violations for the <failure> text.
func runDetail(f *report.RunFile) string {
	var b strings.Builder
	for _, v := range f.Report.Violations {
		fmt.Fprintf(&b, "%s %s %s: %s\n", v.Type, v.Operation, escape.Line(v.Tool), escape.Line(v.Message))
	}
	return b.String()
}
