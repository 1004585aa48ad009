package selftest

import (
	"fmt"
	"slices"
	"strings"

	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// RunResult is one run of one agent in one scenario, judged by the run's
// own judge inside the pipeline.
type RunResult struct {
	Agent    string `json:"agent"`
	Scenario string `json:"scenario"`
	Run      int    `json:"run"`
	// Expected is the verdict this agent must get in this scenario.
	Expected      string `json:"expected"`
	Verdict       string `json:"verdict"`
	VerdictReason string `json:"verdictReason"`
	// Met reports whether Verdict equals Expected and the judge counted
	// the executions the backend really made.
	Met bool `json:"met"`
	// Codes are the deciding codes shown on the per-scenario line: the
	// violation types of a FAIL, otherwise the observation types.
	Codes []string `json:"codes"`
	// BackendExecutions is how many bookings the simulated backend really
	// executed in this run (the ground truth behind the report).
	BackendExecutions int `json:"backendExecutions"`
	// JudgedExecutions is the sum of the report's operations[].executions:
	// the self-test fails a run where it differs from BackendExecutions,
	// whatever the verdict.
	JudgedExecutions int            `json:"judgedExecutions"`
	Score            report.Score   `json:"score"`
	Report           report.Report  `json:"report"`
	Patches          []report.Patch `json:"patches"`

	judge *judge.Judge
}

// fill copies the judge's result into r.
func (r *RunResult) fill(j *judge.Judge) {
	r.judge = j
	r.Verdict, r.VerdictReason = j.Verdict()
	r.Score, r.Report, r.Patches = j.Score(), j.Report(), j.Patches()
	for _, op := range r.Report.Operations {
		r.JudgedExecutions += op.Executions
	}
	r.Met = r.Verdict == r.Expected && r.JudgedExecutions == r.BackendExecutions
	r.Codes = codes(r.Verdict, r.Report)
}

// codes returns the distinct violation types of a FAIL, or else the
// distinct observation types, in report order.
func codes(verdict string, rep report.Report) []string {
	out := []string{}
	if verdict == report.VerdictFail {
		for _, v := range rep.Violations {
			if !slices.Contains(out, v.Type) {
				out = append(out, v.Type)
			}
		}
		return out
	}
	for _, o := range rep.Observations {
		if !slices.Contains(out, o.Type) {
			out = append(out, o.Type)
		}
	}
	return out
}

// AgentResult is one reference agent's result: every run judged on its
// own, and all runs pooled into one score.
type AgentResult struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Expected is the pooled verdict this agent must get.
	Expected      string `json:"expected"`
	Verdict       string `json:"verdict"`
	VerdictReason string `json:"verdictReason"`
	Met           bool   `json:"met"`
	// Score is the pooled score of all runs (judge.Pool).
	Score report.Score `json:"score"`
	Runs  []*RunResult `json:"runs"`
}

// pool scores every run of the agent as one (judge.Pool: the tallies of
// all runs summed, as the worked example of behaviour §4.4 pools F1–F5; FAIL if
// any run failed, else NOT_TESTED if any run was not tested, else PASS).
// Each run stays its own session: no run's calls are compared with
// another's.
func (a *AgentResult) pool() {
	judges := make([]*judge.Judge, len(a.Runs))
	var failed, notTested []string
	for i, r := range a.Runs {
		judges[i] = r.judge
		name := r.Scenario
		if runsPer(a.Runs) > 1 {
			name = fmt.Sprintf("%s run %d", r.Scenario, r.Run)
		}
		switch r.Verdict {
		case report.VerdictFail:
			failed = append(failed, name)
		case report.VerdictNotTested:
			notTested = append(notTested, name)
		}
	}
	a.Score = judge.Pool(judges...)
	a.Verdict = a.Score.Verdict
	a.Met = a.Verdict == a.Expected
	switch a.Verdict {
	case report.VerdictFail:
		a.VerdictReason = fmt.Sprintf("%d of %d runs failed: %s.", len(failed), len(a.Runs), list(failed))
	case report.VerdictNotTested:
		a.VerdictReason = fmt.Sprintf("%d of %d runs were not tested: %s.", len(notTested), len(a.Runs), list(notTested))
	default:
		a.VerdictReason = fmt.Sprintf("Every one of the %d runs passed.", len(a.Runs))
	}
}

// runsPer returns the highest run number among runs.
func runsPer(runs []*RunResult) int {
	n := 0
	for _, r := range runs {
		n = max(n, r.Run)
	}
	return n
}

// list joins names, shortened after ten.
func list(names []string) string {
	if len(names) > 10 {
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}

// Result is the self-test's result.
type Result struct {
	opts   Options
	Agents []*AgentResult
}

// Passed reports whether every run and every pooled result got the
// verdict expected for its agent. Scores play no part.
func (r *Result) Passed() bool {
	return len(r.mismatches()) == 0
}

// mismatch is a run (or a pooled result, Run 0) whose verdict differed,
// or a run whose judge counted other executions than the backend made.
type mismatch struct {
	Agent    string `json:"agent"`
	Scenario string `json:"scenario"`
	// Run is 1-based; 0 for the pooled result.
	Run      int      `json:"run"`
	Expected string   `json:"expected"`
	Verdict  string   `json:"verdict"`
	Codes    []string `json:"codes,omitempty"`
	// JudgedExecutions and BackendExecutions are set when the counts
	// differ.
	JudgedExecutions  *int `json:"judgedExecutions,omitempty"`
	BackendExecutions *int `json:"backendExecutions,omitempty"`
}

func (r *Result) mismatches() []mismatch {
	var out []mismatch
	for _, a := range r.Agents {
		for _, run := range a.Runs {
			if !run.Met {
				m := mismatch{Agent: run.Agent, Scenario: run.Scenario, Run: run.Run,
					Expected: run.Expected, Verdict: run.Verdict, Codes: run.Codes}
				if run.JudgedExecutions != run.BackendExecutions {
					m.JudgedExecutions, m.BackendExecutions = &run.JudgedExecutions, &run.BackendExecutions
				}
				out = append(out, m)
			}
		}
		if !a.Met {
			out = append(out, mismatch{Agent: a.Name, Expected: a.Expected, Verdict: a.Verdict})
		}
	}
	return out
}
