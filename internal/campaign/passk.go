package campaign

import "github.com/cuonztech/agent-harness/internal/stats"

// PassK is τ-bench's pass^k of a scenario: C(c,k)/C(n,k) over n judged
// runs with c PASS, the chance that k independent runs all pass.
type PassK struct {
	K     int     `json:"k"`
	Value float64 `json:"value"`
}

// passKs lists pass^k for k = 1, 2, 4, 8 up to the judged runs.
func passKs(pass, judged int) []PassK {
	out := []PassK{}
	for _, k := range []int{1, 2, 4, 8} {
		if v, ok := stats.PassHatK(pass, judged, k); ok {
			out = append(out, PassK{K: k, Value: v})
		}
	}
	return out
}

// meanPassKs is the overall pass^k: for each k, the mean over the
// scenarios with at least k judged runs (τ-bench averages over tasks).
func meanPassKs(scenarios []Stats) []PassK {
	out := []PassK{}
	for _, k := range []int{1, 2, 4, 8} {
		sum, n := 0.0, 0
		for _, st := range scenarios {
			for _, p := range st.PassK {
				if p.K == k {
					sum += p.Value
					n++
				}
			}
		}
		if n > 0 {
			out = append(out, PassK{K: k, Value: sum / float64(n)})
		}
	}
	return out
}
