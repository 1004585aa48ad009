package plugin_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// f1Reformatted: F1 times out a booking that executed, the agent re-sends
// it with the date reformatted, and it executes again. Built in, that is a
// possible duplicate (behaviour §4.6); the dates plugin makes it the same
// operation.
func f1Reformatted() []judge.Event {
	t0 := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	call := func(id int64, args string) judge.Event {
		return judge.Event{Kind: judge.EventCall, Time: t0, Call: id, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(args)}
	}
	return []judge.Event{
		call(1, `{"date":"2026-11-03","guest":"Ada","idempotency_key":"k-1"}`),
		{Kind: judge.EventForwarded, Time: t0, Call: 1},
		{Kind: judge.EventAnswer, Time: t0, Call: 1, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout"},
		call(2, `{"date":"03.11.2026","guest":"Ada","idempotency_key":"k-2"}`),
		{Kind: judge.EventForwarded, Time: t0, Call: 2},
		{Kind: judge.EventAnswer, Time: t0, Call: 2, Outcome: judge.Executed},
		{Kind: judge.EventEnd, Time: t0},
	}
}

func judged(cfg judge.Config, evs []judge.Event) *judge.Judge {
	j := judge.New(cfg)
	for _, ev := range evs {
		j.Apply(ev)
	}
	return j
}

// The dates plugin turns the reformatted re-send from a possible duplicate
// (NOT_TESTED) into a FAIL (DUPLICATE_EXECUTION), through the same
// judge.Equivalence seam the built-in key uses.
func TestDatesTurnsPassIntoFail(t *testing.T) {
	cfg := judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: "F1"}
	j := judged(cfg, f1Reformatted())
	if v, reason := j.Verdict(); v != "NOT_TESTED" || !hasObservation(j.Report(), "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS") {
		t.Errorf("without the plugin: %s (%s), observations %+v; want NOT_TESTED with POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS", v, reason, j.Report().Observations)
	}
	p, _, _ := loadWith(t, goPlugin(t, "./plugins/dates"), nil)
	cfg.Equivalences = []judge.Equivalence{p.Equivalence()}
	v, reason := judged(cfg, f1Reformatted()).Verdict()
	if v != "FAIL" || !strings.Contains(reason, "DUPLICATE_EXECUTION") {
		t.Errorf("with dates: %s (%s), want FAIL with DUPLICATE_EXECUTION", v, reason)
	}
}

func hasObservation(r report.Report, typ string) bool {
	for _, o := range r.Observations {
		if o.Type == typ {
			return true
		}
	}
	return false
}

// A failing equivalence plugin never yields a silent PASS: the plugin
// counts the failure, the judge reads it (named after the plugin) and the
// run cannot pass.
func TestFailingEquivalenceIsNotAPass(t *testing.T) {
	p, _, _ := loadWith(t, goPlugin(t, "./internal/plugin/testdata/hostile"), nil)
	cfg := judge.Config{KeyFields: canon.ParseKeyFields(nil), Equivalences: []judge.Equivalence{p.Equivalence()},
		PluginStatus: func() []judge.PluginState { return []judge.PluginState{p.Health()} }}
	j := judge.New(cfg)
	t0 := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	for _, ev := range []judge.Event{
		{Kind: judge.EventCall, Time: t0, Call: 1, Tool: "w", Class: classify.Write, Arguments: json.RawMessage(`{"do":"panic"}`)},
		{Kind: judge.EventForwarded, Time: t0, Call: 1},
		{Kind: judge.EventAnswer, Time: t0, Call: 1, Outcome: judge.Executed},
		{Kind: judge.EventEnd, Time: t0},
	} {
		j.Apply(ev)
	}
	if v, reason := j.Verdict(); v == "PASS" {
		t.Errorf("verdict PASS (%s) despite a plugin failure", reason)
	}
	r := j.Report()
	if len(r.PluginFailures) != 1 || r.PluginFailures[0].Plugin != "hostile" || r.PluginFailures[0].Failures != 1 {
		t.Errorf("pluginFailures %+v", r.PluginFailures)
	}
}
