package selftest

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/internal/refagent"
	"github.com/cuonztech/agent-harness/internal/report"
)

// reportFile is the shape of .cuonztech/benchmark-report.json.
type reportFile struct {
	Certification  string       `json:"certification"`
	HarnessVersion string       `json:"harnessVersion"`
	Kind           string       `json:"kind"`
	SelfTest       string       `json:"selfTest"`
	Options        reportOpts   `json:"options"`
	Careful        *AgentResult `json:"careful"`
	Naive          *AgentResult `json:"naive"`
	Mismatches     []mismatch   `json:"mismatches"`
}

type reportOpts struct {
	Scenarios []string `json:"scenarios"`
	Runs      int      `json:"runs"`
	JitterMs  int64    `json:"jitterMs"`
	// Seed is the jitter seed, present only with jitter.
	Seed *uint64 `json:"seed,omitempty"`
}

// JSON returns .cuonztech/benchmark-report.json: certification, each
// agent's pooled verdict and score (careful.score.verdict,
// naive.score.verdict), and every run's own report.
func (r *Result) JSON() ([]byte, error) {
	f := reportFile{
		Certification:  report.Certification,
		HarnessVersion: report.HarnessVersion,
		Kind:           "benchmark",
		SelfTest:       "PASSED",
		Options: reportOpts{Scenarios: r.opts.Scenarios, Runs: r.opts.Runs,
			JitterMs: r.opts.Jitter.Milliseconds()},
		Mismatches: r.mismatches(),
	}
	if r.opts.Jitter > 0 {
		seed := r.opts.Seed
		f.Options.Seed = &seed
	}
	if f.Mismatches == nil {
		f.Mismatches = []mismatch{}
	} else {
		f.SelfTest = "FAILED"
	}
	for _, a := range r.Agents {
		switch a.Name {
		case refagent.Careful{}.Name():
			f.Careful = a
		case refagent.Naive{}.Name():
			f.Naive = a
		}
	}
	out, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return nil, err
	}
	return append(out, '\n'), nil
}
