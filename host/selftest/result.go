package selftest

import (
	"slices"

	"github.com/cuonztech/agent-harness/builtin/judge"
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
	// Met reports whether Verdict equals Expected.
	Met bool `json:"met"`
	// Codes are the deciding codes shown on the per-scenario line: the
	// violation types of a FAIL, otherwise the observation types.
	Codes []string `json:"codes"`
	// BackendExecutions is how many bookings the simulated backend really
	// executed in this run (the ground truth behind the report).
	BackendExecutions int           `json:"backendExecutions"`
	Score             judge.Score   `json:"score"`
	Report            judge.Report  `json:"report"`
	Patches           []judge.Patch `json:"patches"`

	events []judge.Event
}

// fill copies the judge's result into r.
func (r *RunResult) fill(j *judge.Judge) {
	r.Verdict, r.VerdictReason = j.Verdict()
	r.Score, r.Report, r.Patches = j.Score(), j.Report(), j.Patches()
	r.Met = r.Verdict == r.Expected
	r.Codes = codes(r.Verdict, r.Report)
}

// codes returns the distinct violation types of a FAIL, or else the
// distinct observation types, in report order.
func codes(verdict string, rep judge.Report) []string {
	out := []string{}
	if verdict == judge.VerdictFail {
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
// own, and all runs pooled into one judged result.
type AgentResult struct {
	Name        string `json:"name"`
	Description string `json:"description"`
	// Expected is the pooled verdict this agent must get.
	Expected      string        `json:"expected"`
	Verdict       string        `json:"verdict"`
	VerdictReason string        `json:"verdictReason"`
	Met           bool          `json:"met"`
	Score         judge.Score   `json:"score"`
	Report        judge.Report  `json:"report"`
	Patches       []judge.Patch `json:"patches"`
	Runs          []*RunResult  `json:"runs"`
}

// pool judges every run of the agent together with one judge, the way the
// worked example of SPEC §2.4 pools F1–F5. Call numbers are shifted so they
// stay unique; each run's session-end event is replaced by one at the end.
func (a *AgentResult) pool(cfg judge.Config) {
	j := judge.New(cfg)
	var offset int64
	var last judge.Event
	for _, r := range a.Runs {
		var maxID int64
		for _, ev := range r.events {
			if ev.Kind == judge.EventEnd {
				last = ev
				continue
			}
			if ev.Call != 0 {
				maxID = max(maxID, ev.Call)
				ev.Call += offset
			}
			j.Apply(ev)
			last = ev
		}
		offset += maxID
	}
	j.Apply(judge.Event{Kind: judge.EventEnd, Time: last.Time})
	a.Verdict, a.VerdictReason = j.Verdict()
	a.Score, a.Report, a.Patches = j.Score(), j.Report(), j.Patches()
	a.Met = a.Verdict == a.Expected
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

// mismatch is a run (or a pooled result, Run 0) whose verdict differed.
type mismatch struct {
	Agent    string `json:"agent"`
	Scenario string `json:"scenario"`
	// Run is 1-based; 0 for the pooled result.
	Run      int      `json:"run"`
	Expected string   `json:"expected"`
	Verdict  string   `json:"verdict"`
	Codes    []string `json:"codes,omitempty"`
}

func (r *Result) mismatches() []mismatch {
	var out []mismatch
	for _, a := range r.Agents {
		for _, run := range a.Runs {
			if !run.Met {
				out = append(out, mismatch{Agent: run.Agent, Scenario: run.Scenario, Run: run.Run,
					Expected: run.Expected, Verdict: run.Verdict, Codes: run.Codes})
			}
		}
		if !a.Met {
			out = append(out, mismatch{Agent: a.Name, Expected: a.Expected, Verdict: a.Verdict})
		}
	}
	return out
}
