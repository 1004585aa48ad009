package selftest

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cuonztech/agent-harness/internal/refagent"
	"github.com/cuonztech/agent-harness/internal/report"
)

// maxListedMismatches bounds the FAILED list on stdout; the JSON report
// lists all of them.
const maxListedMismatches = 20

// Text renders the human result (stdout of `agent-harness benchmark`).
func (r *Result) Text() string {
	var b strings.Builder
	runWord := "run"
	if r.opts.Runs != 1 {
		runWord = "runs"
	}
	fmt.Fprintf(&b, "agent-harness benchmark: a self-test of the harness, not a measurement of your agent.\n")
	fmt.Fprintf(&b, "Scenarios %s, %d %s each, through the proxy's relay and pipeline.\n\n",
		strings.Join(r.opts.Scenarios, ", "), r.opts.Runs, runWord)
	for i, a := range r.Agents {
		fmt.Fprintf(&b, "Reference agent %d/%d: %s (%s)\n", i+1, len(r.Agents), a.Name, a.Description)
		fmt.Fprintf(&b, "## Overall: %s [%s]\n\n", overall(a.Score), a.Verdict)
		writeTable(&b, a.Score)
		if a.Score.Capped {
			b.WriteString("\nA run with a violation is capped at 49.\n")
		}
		b.WriteString("\n")
		for _, line := range scenarioLines(a, r.opts) {
			b.WriteString(line + "\n")
		}
		b.WriteString("\n")
	}
	r.writeSummary(&b)
	return b.String()
}

// overall renders the total, "n/a" for NOT_TESTED.
func overall(s report.Score) string {
	if s.Total == nil {
		return "n/a"
	}
	return strconv.Itoa(*s.Total) + "/100"
}

func writeTable(b *strings.Builder, s report.Score) {
	b.WriteString("| Dimension | Score | Weight |\n|---|---|---|\n")
	fmt.Fprintf(b, "| Duplicate Safety | %s | %d%% |\n", percent(s.DuplicateSafety, "n/a"), s.Weights.DuplicateSafety)
	fmt.Fprintf(b, "| Failure Handling | %s | %d%% |\n", percent(s.FailureHandling, "nothing injected"), s.Weights.FailureHandling)
	b.WriteString("| Honesty | not measured | — |\n")
}

func percent(v *float64, none string) string {
	if v == nil {
		return none
	}
	return strconv.FormatFloat(*v, 'f', -1, 64) + "%"
}

// scenarioLines returns one line per scenario, or per distinct outcome of
// a scenario when its runs differ:
//
//   - F1: PASS as expected (VERIFIED_NO_RETRY)
//   - F1: FAIL as expected in 3/3 runs (DUPLICATE_EXECUTION)
//   - F1: PASS in 1/3 runs, expected FAIL (UNVERIFIED_AFTER_TIMEOUT)
func scenarioLines(a *AgentResult, opts Options) []string {
	var lines []string
	for _, sc := range opts.Scenarios {
		type group struct {
			verdict, codes string
			expected       string
			n              int
		}
		var groups []*group
		for _, run := range a.Runs {
			if run.Scenario != sc {
				continue
			}
			c := strings.Join(run.Codes, ", ")
			if c == "" {
				c = "no failure to handle"
			}
			var g *group
			for _, x := range groups {
				if x.verdict == run.Verdict && x.codes == c {
					g = x
				}
			}
			if g == nil {
				g = &group{verdict: run.Verdict, codes: c, expected: run.Expected}
				groups = append(groups, g)
			}
			g.n++
		}
		for _, g := range groups {
			count := ""
			if opts.Runs > 1 {
				count = fmt.Sprintf(" in %d/%d runs", g.n, opts.Runs)
			}
			if g.verdict == g.expected {
				lines = append(lines, fmt.Sprintf("- %s: %s as expected%s (%s)", sc, g.verdict, count, g.codes))
			} else {
				lines = append(lines, fmt.Sprintf("- %s: %s%s, expected %s (%s)", sc, g.verdict, count, g.expected, g.codes))
			}
		}
	}
	return lines
}

func (r *Result) writeSummary(b *strings.Builder) {
	ms := r.mismatches()
	if len(ms) == 0 {
		b.WriteString("Self-test PASSED: every run got the verdict expected for its reference agent.\n")
		if fails := failingScenarios(refagent.Naive{}.Name(), r.opts.Scenarios); len(fails) > 0 {
			fmt.Fprintf(b, "The naive agent is expected to fail in %s and did.\n", strings.Join(fails, ", "))
		} else {
			fmt.Fprintf(b, "The naive agent is expected to pass %s (no scenario that separates the agents was selected) and did.\n",
				strings.Join(r.opts.Scenarios, ", "))
		}
		return
	}
	total := len(r.Agents) // pooled results
	for _, a := range r.Agents {
		total += len(a.Runs)
	}
	what := "verdicts differed from the one expected for the reference agent"
	for _, m := range ms {
		if m.JudgedExecutions != nil {
			what = "results differed from the one expected for the reference agent or counted other executions than the backend made"
			break
		}
	}
	fmt.Fprintf(b, "Self-test FAILED: %d of %d %s:\n", len(ms), total, what)
	for i, m := range ms {
		if i == maxListedMismatches {
			fmt.Fprintf(b, "- … and %d more (all are listed in the JSON report: .cuonztech/benchmark-report.json or --report-file)\n", len(ms)-i)
			break
		}
		if m.Run == 0 {
			fmt.Fprintf(b, "- %s pooled over %s: got %s, expected %s\n", m.Agent, strings.Join(r.opts.Scenarios, ", "), m.Verdict, m.Expected)
			continue
		}
		codes := ""
		if len(m.Codes) > 0 {
			codes = " (" + strings.Join(m.Codes, ", ") + ")"
		}
		if m.JudgedExecutions != nil {
			fmt.Fprintf(b, "- %s %s run %d: got %s%s, expected %s; the judge counted %d executions, the backend made %d\n",
				m.Agent, m.Scenario, m.Run, m.Verdict, codes, m.Expected, *m.JudgedExecutions, *m.BackendExecutions)
			continue
		}
		fmt.Fprintf(b, "- %s %s run %d: got %s%s, expected %s\n", m.Agent, m.Scenario, m.Run, m.Verdict, codes, m.Expected)
	}
}
