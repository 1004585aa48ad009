package campaign

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cuonztech/agent-harness/internal/stats"
)

// SummaryVersion is the version of campaign.json's shape.
const SummaryVersion = 1

// Summary is OUT/campaign.json (schema: campaign.schema.json).
type Summary struct {
	SchemaVersion  int    `json:"schemaVersion"`
	HarnessVersion string `json:"harnessVersion"`
	// Complete is true when every run of the plan (of the shard, with
	// --shard) is finished.
	Complete bool `json:"complete"`
	// Shard is "I/N" for one shard of a campaign, absent otherwise.
	Shard       string           `json:"shard,omitempty"`
	Plan        *Plan            `json:"plan"`
	Variants    []VariantSummary `json:"variants"`
	Comparisons []Comparison     `json:"comparisons"`
	Gate        Gate             `json:"gate"`
	Runs        []Record         `json:"runs"`
}

// VariantSummary holds the statistics of one variant ("" without
// variants): per scenario and overall.
type VariantSummary struct {
	Name      string   `json:"name"`
	Env       []string `json:"env"`
	Scenarios []Stats  `json:"scenarios"`
	Overall   Stats    `json:"overall"`
}

// Stats are the statistics of a set of runs (behaviour §9).
type Stats struct {
	Scenario string `json:"scenario"` // "" for the overall statistics
	// Planned runs; Finished of them have a record.
	Planned   int `json:"planned"`
	Runs      int `json:"runs"`
	Pass      int `json:"pass"`
	Fail      int `json:"fail"`
	NotTested int `json:"notTested"`
	Judged    int `json:"judged"`
	// PassRate is Pass/Judged (null without judged runs), with its
	// Wilson 95 % interval.
	PassRate         *float64  `json:"passRate"`
	PassRateInterval *Interval `json:"passRateInterval"`
	// MeanScore over the judged runs' scores, with its Student's t 95 %
	// interval (null with fewer than two scores).
	MeanScore         *float64    `json:"meanScore"`
	MeanScoreInterval *Interval   `json:"meanScoreInterval"`
	Violations        []TypeCount `json:"violations"`
	Observations      []TypeCount `json:"observations"`
	// Backend counts the wire-vs-backend entries by type (Record.Backend;
	// behaviour §16), absent when no run had one.
	Backend     []TypeCount  `json:"backend,omitempty"`
	Patches     []PatchShare `json:"patches"`
	AgentWallMs WallTime     `json:"agentWallMs"`
	// NotTestedKinds counts the NOT_TESTED runs by kind (behaviour §9.3),
	// most runs first; "other" once per distinct reason.
	NotTestedKinds []KindCount `json:"notTestedKinds"`
	// PassK is pass^k for k = 1, 2, 4, 8 up to Judged (overall: the mean
	// over the scenarios), behaviour §15.3.
	PassK   []PassK      `json:"passK"`
	Honesty HonestyStats `json:"honesty"`
	// Model: the built-in agent's model statistics, null when no run has
	// a transcript.
	Model *ModelStats `json:"model"`
}

// KindCount counts the NOT_TESTED runs of one kind; Reason is set for the
// kind "other" (the runs' reason).
type KindCount struct {
	Kind   string `json:"kind"`
	Runs   int    `json:"runs"`
	Reason string `json:"reason,omitempty"`
}

// Interval is a 95 % interval.
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// TypeCount counts the runs with an entry of a type and the entries.
type TypeCount struct {
	Type    string `json:"type"`
	Runs    int    `json:"runs"`
	Entries int    `json:"entries"`
}

// PatchShare is a prompt patch and the share of runs that triggered it.
type PatchShare struct {
	Type     string  `json:"type"`
	Severity string  `json:"severity"`
	Runs     int     `json:"runs"`
	Share    float64 `json:"share"`
}

// WallTime is the median and nearest-rank 95th percentile of the agents'
// wall times, null without runs.
type WallTime struct {
	Median *float64 `json:"median"`
	P95    *float64 `json:"p95"`
}

// Comparison compares a variant with the first one on one scenario: the
// PASS-rate difference (variant − baseline) with Newcombe's hybrid score
// 95 % interval and Fisher's exact two-sided p-value over PASS vs FAIL of
// the judged runs.
type Comparison struct {
	Scenario   string    `json:"scenario"`
	Baseline   string    `json:"baseline"`
	Variant    string    `json:"variant"`
	Difference *float64  `json:"difference"`
	Interval   *Interval `json:"interval"`
	FisherP    *float64  `json:"fisherP"`
}

// Gate is the decision of --min-pass-rate and --max-not-tested (behaviour
// §9.3).
type Gate struct {
	Variant      string  `json:"variant"`
	MinPassRate  float64 `json:"minPassRate"`
	MaxNotTested float64 `json:"maxNotTested"`
	// MinHonestyRate is --min-honesty-rate, absent when not given.
	MinHonestyRate *float64 `json:"minHonestyRate,omitempty"`
	ExitCode       int      `json:"exitCode"`
	// Reason names every scenario that fails the gate and why (Failures
	// in one sentence), or why the gate passed.
	Reason   string        `json:"reason"`
	Failures []GateFailure `json:"failures"`
}

// GateFailure is one scenario that fails the gate: Rule is "pass-rate" or
// "honesty-rate" (exit 1), "not-tested", "no-judged-run" or
// "no-honesty-measured" (exit 3), "incomplete".
type GateFailure struct {
	Scenario string `json:"scenario"`
	Rule     string `json:"rule"`
	Reason   string `json:"reason"`
}

// Summarize computes the statistics of recs (any order) for plan p.
// planned counts the runs expected per variant and scenario (the plan's
// runs, or a shard's share).
func Summarize(p *Plan, recs []Record, planned func(variant, scenario string) int) Summary {
	recs = sortedRecords(recs)
	s := Summary{SchemaVersion: SummaryVersion, Plan: p, Runs: recs, Variants: []VariantSummary{}, Comparisons: []Comparison{}}
	for _, vn := range p.variantNames() {
		vs := VariantSummary{Name: vn, Env: []string{}}
		for _, v := range p.Variants {
			if v.Name == vn {
				vs.Env = v.Env
			}
		}
		var all []Record
		total := 0
		for _, sc := range p.Scenarios {
			var rs []Record
			for _, r := range recs {
				if r.Variant == vn && r.Scenario == sc {
					rs = append(rs, r)
				}
			}
			all = append(all, rs...)
			n := planned(vn, sc)
			total += n
			st := computeStats(rs, n)
			st.Scenario = sc
			vs.Scenarios = append(vs.Scenarios, st)
		}
		vs.Overall = computeStats(all, total)
		vs.Overall.PassK = meanPassKs(vs.Scenarios)
		s.Variants = append(s.Variants, vs)
	}
	if len(s.Variants) > 1 {
		base := s.Variants[0]
		for _, v := range s.Variants[1:] {
			for i, sc := range p.Scenarios {
				s.Comparisons = append(s.Comparisons, compare(sc, base.Name, v.Name, base.Scenarios[i], v.Scenarios[i]))
			}
		}
	}
	return s
}

func sortedRecords(recs []Record) []Record {
	out := append([]Record(nil), recs...)
	for i := range out {
		if out[i].Violations == nil {
			out[i].Violations = []string{}
		}
		if out[i].Observations == nil {
			out[i].Observations = []string{}
		}
		if out[i].Patches == nil {
			out[i].Patches = []Patch{}
		}
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Variant != b.Variant {
			return a.Variant < b.Variant
		}
		if a.Scenario != b.Scenario {
			return a.Scenario < b.Scenario
		}
		return a.Run < b.Run
	})
	if out == nil {
		out = []Record{}
	}
	return out
}

func computeStats(rs []Record, planned int) Stats {
	st := Stats{Planned: planned, Runs: len(rs), Violations: []TypeCount{}, Observations: []TypeCount{}, Patches: []PatchShare{},
		NotTestedKinds: []KindCount{}}
	var scores, walls []float64
	viol, obs, backend := counter{}, counter{}, counter{}
	patchRuns := map[string]int{}
	patchSeverity := map[string]string{}
	for _, r := range rs {
		switch r.Verdict {
		case Pass:
			st.Pass++
		case Fail:
			st.Fail++
		default:
			st.NotTested++
			st.NotTestedKinds = addKind(st.NotTestedKinds, r)
		}
		if r.Verdict == Pass || r.Verdict == Fail {
			if r.Score != nil {
				scores = append(scores, float64(*r.Score))
			}
		}
		walls = append(walls, r.AgentWallMs)
		viol.add(r.Violations)
		obs.add(r.Observations)
		backend.add(r.Backend)
		seen := map[string]bool{}
		for _, p := range r.Patches {
			if !seen[p.Type] {
				seen[p.Type] = true
				patchRuns[p.Type]++
				patchSeverity[p.Type] = p.Severity
			}
		}
	}
	st.Judged = st.Pass + st.Fail
	st.PassK = passKs(st.Pass, st.Judged)
	st.Honesty = computeHonesty(rs)
	st.Model = computeModel(rs)
	if iv, ok := stats.Wilson(st.Pass, st.Judged, stats.Z95); ok {
		rate := float64(st.Pass) / float64(st.Judged)
		st.PassRate = &rate
		st.PassRateInterval = &Interval{Low: iv.Low, High: iv.High}
	}
	if m, iv, has, ok := stats.MeanInterval(scores); ok {
		st.MeanScore = &m
		if has {
			// Scores lie in [0, 100]; the t interval need not.
			st.MeanScoreInterval = &Interval{Low: max(iv.Low, 0), High: min(iv.High, 100)}
		}
	}
	st.Violations, st.Observations = viol.list(), obs.list()
	if len(backend) > 0 {
		st.Backend = backend.list()
	}
	for t, n := range patchRuns {
		st.Patches = append(st.Patches, PatchShare{Type: t, Severity: patchSeverity[t], Runs: n, Share: float64(n) / float64(len(rs))})
	}
	sort.Slice(st.Patches, func(i, j int) bool {
		if st.Patches[i].Runs != st.Patches[j].Runs {
			return st.Patches[i].Runs > st.Patches[j].Runs
		}
		return st.Patches[i].Type < st.Patches[j].Type
	})
	sort.SliceStable(st.NotTestedKinds, func(i, j int) bool { return st.NotTestedKinds[i].Runs > st.NotTestedKinds[j].Runs })
	if m, ok := stats.Median(walls); ok {
		p95, _ := stats.Percentile(walls, 95)
		st.AgentWallMs = WallTime{Median: &m, P95: &p95}
	}
	return st
}

// counter counts entry types: runs with the type and entries.
type counter map[string]*TypeCount

func (c counter) add(types []string) {
	seen := map[string]bool{}
	for _, t := range types {
		tc := c[t]
		if tc == nil {
			tc = &TypeCount{Type: t}
			c[t] = tc
		}
		tc.Entries++
		if !seen[t] {
			seen[t] = true
			tc.Runs++
		}
	}
}

func (c counter) list() []TypeCount {
	out := []TypeCount{}
	for _, tc := range c {
		out = append(out, *tc)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Runs != out[j].Runs {
			return out[i].Runs > out[j].Runs
		}
		return out[i].Type < out[j].Type
	})
	return out
}

func compare(scenario, baseName, varName string, base, v Stats) Comparison {
	c := Comparison{Scenario: scenario, Baseline: baseName, Variant: varName}
	if d, iv, ok := stats.Newcombe(v.Pass, v.Judged, base.Pass, base.Judged, stats.Z95); ok {
		c.Difference = &d
		c.Interval = &Interval{Low: iv.Low, High: iv.High}
		p := stats.FisherExact(v.Pass, v.Fail, base.Pass, base.Fail)
		c.FisherP = &p
	}
	return c
}

// Decide applies the gate to variant vn (behaviour §9.3): exit 1 when some
// scenario's PASS rate over its judged runs is below min; otherwise 3 when
// some scenario's share of NOT_TESTED runs is above maxNotTested or it has
// no judged run; otherwise 0. Every failing scenario is named, with the
// NOT_TESTED runs counted by kind: a NOT_TESTED run is never a safe one.
func Decide(s *Summary, vn string, min, maxNotTested float64) Gate {
	g := Gate{Variant: vn, MinPassRate: min, MaxNotTested: maxNotTested, Failures: []GateFailure{}}
	var vs *VariantSummary
	for i := range s.Variants {
		if s.Variants[i].Name == vn {
			vs = &s.Variants[i]
		}
	}
	if vs == nil {
		g.ExitCode, g.Reason = 3, "no such variant"
		return g
	}
	var below, untested []GateFailure
	for _, st := range vs.Scenarios {
		if st.Planned == 0 && st.Runs == 0 {
			continue // a shard whose slice holds no run of the scenario
		}
		// pass/judged < min and notTested/runs > max, compared without
		// division rounding.
		if st.Judged > 0 && float64(st.Pass) < min*float64(st.Judged)-1e-9 {
			below = append(below, GateFailure{Scenario: st.Scenario, Rule: "pass-rate",
				Reason: fmt.Sprintf("PASS rate %s (%d of %d judged runs) is below %s", percent(*st.PassRate), st.Pass, st.Judged, percent(min))})
		}
		switch {
		case st.Judged == 0:
			why := "none finished"
			if st.Runs > 0 {
				why = fmt.Sprintf("all %d NOT_TESTED: %s", st.Runs, kindsText(st.NotTestedKinds))
			}
			untested = append(untested, GateFailure{Scenario: st.Scenario, Rule: "no-judged-run", Reason: "no judged run (" + why + ")"})
		case float64(st.NotTested) > maxNotTested*float64(st.Runs)+1e-9:
			untested = append(untested, GateFailure{Scenario: st.Scenario, Rule: "not-tested",
				Reason: fmt.Sprintf("%d of %d runs NOT_TESTED (%s, above --max-not-tested %s): %s", st.NotTested, st.Runs,
					percent(float64(st.NotTested)/float64(st.Runs)), percent(maxNotTested), kindsText(st.NotTestedKinds))})
		}
	}
	// Never nil: campaign.json's gate.failures is an array, also when
	// nothing fails.
	g.Failures = append(append(g.Failures, below...), untested...)
	switch {
	case len(below) > 0:
		g.ExitCode = 1
	case len(untested) > 0:
		g.ExitCode = 3
	default:
		g.Reason = "every scenario's PASS rate is at least " + percent(min) + " and its NOT_TESTED share at most " + percent(maxNotTested)
		return g
	}
	parts := make([]string, len(g.Failures))
	for i, f := range g.Failures {
		parts[i] = "scenario " + f.Scenario + ": " + f.Reason
	}
	g.Reason = strings.Join(parts, "; ")
	return g
}

// kindsText is "8 agent crashed, 1 other (reason)".
func kindsText(ks []KindCount) string {
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("%d %s", k.Runs, k.Kind)
		if k.Reason != "" {
			parts[i] += " (" + strings.TrimSuffix(k.Reason, ".") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// GateIncomplete marks a gate over a merge with missing runs (behaviour
// §9.4): never 0 — exit 3, or 1 when the runs that are there already fail
// the PASS-rate rule — with the missing slices first in the reason.
func GateIncomplete(g *Gate, missing string) {
	g.Failures = append(g.Failures, GateFailure{Rule: "incomplete", Reason: missing})
	if g.ExitCode == 0 {
		g.ExitCode = 3
		g.Reason = "incomplete: " + missing
		return
	}
	g.Reason = "incomplete: " + missing + "; " + g.Reason
}
