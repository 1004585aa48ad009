package render

import (
	"fmt"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/junit"
	"github.com/cuonztech/agent-harness/internal/report"
)

// JUnit renders runs as one <testsuites> with a <testsuite> per run, named
// after its scenario: one <testcase> for the run's verdict and one per
// operation. FAIL is a <failure>, NOT_TESTED a <skipped>, and so is the
// PASS of a run that did not finish (RunFile.Unfinished); an operation
// with a violation fails, one whose execution is unknown is skipped.
func JUnit(runs ...*report.RunFile) []byte {
	all := junit.Suites{Name: "agent-harness", Errors: new(int)}
	for _, f := range runs {
		s := junit.Suite{Name: f.ScenarioName(), Errors: new(int)}
		class := "agent-harness." + f.ScenarioName()
		run := junit.Case{Name: "verdict", ClassName: class}
		switch f.Verdict {
		case "FAIL":
			run.Failure = &junit.Message{Message: escape.Line(f.Report.VerdictReason), Type: "FAIL", Text: runDetail(f)}
		case "PASS":
			if note := f.Unfinished(); note != "" {
				run.Skipped = &junit.Message{Message: note}
			}
		default:
			run.Skipped = &junit.Message{Message: escape.Line(f.Report.VerdictReason)}
		}
		s.Cases = append(s.Cases, run)
		viol := map[string][]string{}
		for _, v := range f.Report.Violations {
			viol[v.Operation] = append(viol[v.Operation], v.Type+": "+escape.Line(v.Message))
		}
		for _, op := range f.Report.Operations {
			c := junit.Case{Name: op.ID + " " + escape.Line(op.Tool), ClassName: class}
			switch {
			case len(viol[op.ID]) > 0:
				c.Failure = &junit.Message{Message: strings.Join(viol[op.ID], "; "), Type: string(op.Outcome),
					Text: fmt.Sprintf("arguments: %s\nattempts: %d, executions: %d, failed attempts: %d", escape.Line(string(op.Arguments)), op.Attempts, op.Executions, op.FailedAttempts)}
			case op.Outcome == "EXECUTION_UNKNOWN":
				c.Skipped = &junit.Message{Message: fmt.Sprintf("%s: whether %s executed is unknown", op.ID, escape.Line(op.Tool))}
			}
			s.Cases = append(s.Cases, c)
		}
		all.Add(s)
	}
	return junit.Encode(all)
}

// runDetail lists a failed run's violations for the <failure> text.
func runDetail(f *report.RunFile) string {
	var b strings.Builder
	for _, v := range f.Report.Violations {
		fmt.Fprintf(&b, "%s %s %s: %s\n", v.Type, v.Operation, escape.Line(v.Tool), escape.Line(v.Message))
	}
	return b.String()
}
