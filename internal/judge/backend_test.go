package judge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/state"
)

// snap emits a state snapshot with bookings = n (n < 0: a failed probe).
func (s *sess) snap(at string, n int) {
	sn := &state.Snapshot{At: at, Counters: map[string]json.Number{"bookings": json.Number(strconv.Itoa(n))}}
	if n < 0 {
		sn = &state.Snapshot{At: at, Error: "state probe: exit status 1"}
	}
	s.emit(Event{Kind: EventState, State: sn})
}

var baseline = Config{State: StateConfig{Command: "probe", Map: map[string]string{"create_booking": "bookings"}}}

var probed = Config{Scenario: "F1", State: StateConfig{Command: "probe", Map: map[string]string{"create_booking": "bookings"}}}

// opWant checks the first operation's effects and decidedBy.
func opWant(effects, decided string) func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
	return func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
		t.Helper()
		if len(r.Operations) == 0 {
			t.Fatal("no operation")
		}
		op := r.Operations[0]
		if string(op.Effects) != effects || op.DecidedBy != decided {
			t.Errorf("effects %s decidedBy %q, want %s %q", op.Effects, op.DecidedBy, effects, decided)
		}
	}
}

// TestBackendRules: SPEC §19's "Precisely" cases, each against the wire
// judgement it confirms, overturns or leaves (behaviour §16.3).
func TestBackendRules(t *testing.T) {
	const k = `{"room":"1","idempotency_key":"k"}`
	runRules(t, []rule{
		{name: "e=1 w=2: deduplicated, PASS", cfg: probed, build: func(s *sess) {
			s.snap("before", 3)
			s.f1(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.snap("after", 4)
			s.end()
		}, want: want{verdict: "PASS", total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted},
			observations: []string{obsDeduplicatedByBackend}, check: opWant("1", "backend")}},
		{name: "e=2 w=1 u=1: duplicate by the backend, FAIL", cfg: baseline, build: func(s *sess) {
			s.snap("before", 0)
			s.ok(s.write("create_booking", k))
			s.unknown(s.write("create_booking", k))
			s.snap("after", 2)
			s.end()
		}, want: want{verdict: "FAIL", reason: `executed 2 times — by the backend's count (state probe counter "bookings" rose by 2; the wire saw 1 execution(s))`,
			total: 0, violations: []string{violationDuplicate}, patches: []string{"IDEMPOTENCY"}, outcomes: []report.OperationOutcome{report.OperationDuplicate},
			check: func(t *testing.T, r report.Report, sc report.Score, ps []report.Patch) {
				opWant("2", "backend")(t, r, sc, ps)
				if d := r.Violations[0].Duplicate; d.Executions != 2 || !strings.Contains(r.Violations[0].Message, "state probe") {
					t.Errorf("violation %+v %s", d, r.Violations[0].Message)
				}
			}}},
		{name: "e=2 with one unknown attempt alone: duplicate", cfg: baseline, build: func(s *sess) {
			s.snap("before", 0)
			s.unknown(s.write("create_booking", k))
			s.snap("after", 2)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, patches: []string{"IDEMPOTENCY"}, check: opWant("2", "backend")}},
		{name: "e=1 resolves a lost answer and its retry", cfg: baseline, build: func(s *sess) {
			s.snap("before", 5)
			s.unknown(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.snap("after", 6)
			s.end()
		}, want: want{verdict: "PASS", total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted}, check: opWant("1", "backend")}},
		{name: "e=1 resolves a single unknown", cfg: baseline, build: func(s *sess) {
			s.snap("before", 0)
			s.unknown(s.write("create_booking", k))
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "PASS", total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted}, check: opWant("1", "backend")}},
		{name: "e=1 w=1 confirms", cfg: probed, build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", k))
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "PASS", total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{"VERIFICATION"}, check: opWant("1", "wire")}},
		{name: "e=0 w=2: disagrees, the wire FAIL stands", cfg: probed, build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.snap("after", 0)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, observations: []string{obsBackendDisagrees},
			patches: []string{"GHOST_WRITE"}, check: opWant("0", "wire")}},
		{name: "e<0: disagrees", cfg: probed, build: func(s *sess) {
			s.snap("before", 4)
			s.ok(s.write("create_booking", k))
			s.snap("after", 3)
			s.end()
		}, want: want{verdict: "NOT_TESTED", total: -1, observations: []string{obsBackendDisagrees}, check: opWant("-1", "wire")}},
		{name: "e=1 w=0 u=0: disagrees, nothing ran", cfg: probed, build: func(s *sess) {
			s.snap("before", 0)
			s.answer(s.write("create_booking", k), InjectedNotExecuted, "F1", "timeout")
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "PASS", observations: []string{obsAbandoned, obsBackendDisagrees}, total: 100, check: opWant("1", "wire")}},
		{name: "e=0 with unknowns: the wire's NOT_TESTED stands", cfg: probed, build: func(s *sess) {
			s.snap("before", 0)
			s.unknown(s.write("create_booking", k))
			s.unknown(s.write("create_booking", k))
			s.snap("after", 0)
			s.end()
		}, want: want{verdict: "NOT_TESTED", total: -1, observations: []string{obsExecutionUnknown}, check: opWant("0", "wire")}},
		{name: "e=1 with an attempt still in flight at the after snapshot: the wire stands", cfg: baseline, build: func(s *sess) {
			s.snap("before", 0)
			s.ok(s.write("create_booking", k))
			s.write("create_booking", k) // no answer before the snapshot
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "NOT_TESTED", total: -1, observations: []string{obsExecutionUnknown}, check: opWant("1", "wire")}},
		{name: "e=2 with an attempt still in flight: duplicate", cfg: baseline, build: func(s *sess) {
			s.snap("before", 0)
			s.ok(s.write("create_booking", k))
			s.write("create_booking", k)
			s.snap("after", 2)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, patches: []string{"IDEMPOTENCY"}, check: opWant("2", "backend")}},
		{name: "two operations of the tool: no attribution", cfg: probed, build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.ok(s.write("create_booking", `{"room":"2"}`))
			s.snap("after", 2)
			s.end()
		}, want: want{verdict: "FAIL", total: 30, capped: false, violations: []string{violationDuplicate}, patches: []string{"GHOST_WRITE"},
			observations: []string{obsOtherWriteAfterUncert},
			check: func(t *testing.T, r report.Report, sc report.Score, ps []report.Patch) {
				opWant("null", "wire")(t, r, sc, ps)
			}}},
		{name: "a failed probe: the wire judgement stands", cfg: probed, build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.snap("after", -1)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, patches: []string{"GHOST_WRITE"}, check: opWant("null", "wire")}},
		{name: "no before snapshot: the wire judgement stands", cfg: probed, build: func(s *sess) {
			s.f1(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, patches: []string{"GHOST_WRITE"}, check: opWant("null", "wire")}},
		{name: "an unmapped tool: no effects", cfg: Config{Scenario: "F1", State: StateConfig{Command: "probe", Map: map[string]string{"pay": "bookings"}}}, build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", k))
			s.ok(s.write("create_booking", k))
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, patches: []string{"GHOST_WRITE"}, check: opWant("null", "wire")}},
	})
}

// TestBackendStateObject: the report file's state object holds the
// snapshots, per tool the effect or why there is none, and the first
// failure; a run without a probe has neither it nor effects.
func TestBackendStateObject(t *testing.T) {
	s := newSess()
	s.snap("before", 0)
	s.f1(s.write("create_booking", `{"room":"1"}`))
	s.snap("after", -1)
	s.end()
	var f struct {
		State  *report.StateInfo `json:"state"`
		Report struct {
			Operations []map[string]json.RawMessage `json:"operations"`
		} `json:"report"`
	}
	file := s.judge(probed).AppendFile(nil, report.FileMeta{})
	if err := json.Unmarshal(file, &f); err != nil {
		t.Fatal(err)
	}
	v := newSchemaValidator(t, report.Schema)
	if errs := v.validate(file); len(errs) != 0 {
		t.Errorf("schema: %v", errs)
	}
	for _, c := range []struct{ build func(*sess) }{
		{func(s *sess) { // deduplicated: an observation of the new types
			s.snap("before", 0)
			s.f1(s.write("create_booking", `{"room":"1"}`))
			s.ok(s.write("create_booking", `{"room":"1"}`))
			s.snap("after", 1)
		}},
		{func(s *sess) { // disagrees
			s.snap("before", 0)
			s.ok(s.write("create_booking", `{"room":"1"}`))
			s.snap("after", 0)
		}},
	} {
		s := newSess()
		c.build(s)
		if errs := v.validate(s.judge(probed).AppendFile(nil, report.FileMeta{})); len(errs) != 0 {
			t.Errorf("schema: %v", errs)
		}
	}
	if errs := v.validate([]byte(strings.Replace(string(file), `"decidedBy":"wire"`, `"decidedBy":"probe"`, 1))); len(errs) == 0 {
		t.Error("the schema accepts decidedBy probe")
	}
	st := f.State
	if st == nil || st.Command != "probe" || st.Before == nil || st.After == nil || len(st.Snapshots) != 2 || st.Error == nil ||
		*st.Error != "after: state probe: exit status 1 (and 1 more)" || len(st.Tools) != 1 || st.Tools[0].Effects != nil ||
		st.Tools[0].Executions != 1 || !strings.Contains(st.Tools[0].Error, "after the session: state probe: exit status 1") {
		b, _ := json.Marshal(st)
		t.Errorf("state %s", b)
	}
	if op := f.Report.Operations[0]; string(op["effects"]) != "null" || string(op["decidedBy"]) != `"wire"` {
		t.Errorf("operation %s %s", op["effects"], op["decidedBy"])
	}
	plain := newSess()
	plain.f1(plain.write("create_booking", `{"room":"1"}`))
	b := plain.judge(Config{Scenario: "F1"}).AppendFile(nil, report.FileMeta{})
	if strings.Contains(string(b), `"state"`) || strings.Contains(string(b), `"effects"`) || strings.Contains(string(b), `"decidedBy"`) {
		t.Errorf("a run without a probe: %s", b)
	}
}
