package judge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// fakeState is a state hook answering effects by operation id.
type fakeState struct {
	name  string
	calls int
	got   StateInput
	fn    func(StateInput) (map[string]*int64, error)
}

func (f *fakeState) Name() string { return f.name }

func (f *fakeState) Attribute(in StateInput) (map[string]*int64, error) {
	f.calls++
	f.got = in
	return f.fn(in)
}

func n64(v int64) *int64 { return &v }

// answer returns a state hook that gives the effects in order of the
// operations (nil = null).
func answer(effects ...*int64) *fakeState {
	return &fakeState{name: "fake", fn: func(in StateInput) (map[string]*int64, error) {
		out := map[string]*int64{}
		for i, op := range in.Operations {
			if i < len(effects) {
				out[op.ID] = effects[i]
			}
		}
		return out, nil
	}}
}

func pluginCfg(p StateAttributor, m map[string]string) Config {
	return Config{Scenario: "F1", State: StateConfig{Command: "probe", Map: m, Plugins: []StateAttributor{p}}}
}

// opsWant checks every operation's effects and decidedBy, in order.
func opsWant(pairs ...string) func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
	return func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
		t.Helper()
		if len(r.Operations)*2 != len(pairs) {
			t.Fatalf("%d operations, want %d", len(r.Operations), len(pairs)/2)
		}
		for i, op := range r.Operations {
			if string(op.Effects) != pairs[2*i] || op.DecidedBy != pairs[2*i+1] {
				t.Errorf("operation %s: effects %s decidedBy %q, want %s %q", op.ID, op.Effects, op.DecidedBy, pairs[2*i], pairs[2*i+1])
			}
		}
	}
}

const (
	ada = `{"guest":"Ada","idempotency_key":"k1"}`
	bob = `{"guest":"Bob","idempotency_key":"k2"}`
)

// twoBookings: Ada's booking re-sent after an F1 timeout (two wire
// executions), Bob's once. Two operations of one tool: a counter alone
// cannot attribute (behaviour §16.3); a state plugin can (§16.4).
func twoBookings(after int) func(s *sess) {
	return func(s *sess) {
		s.snap("before", 0)
		s.f1(s.write("create_booking", ada))
		s.ok(s.write("create_booking", ada))
		s.ok(s.write("create_booking", bob))
		s.snap("after", after)
		s.end()
	}
}

// TestBackendPluginRules: a state plugin's attribution is judged by the
// counter's rules per operation, and a plugin that fails or answers
// outside the interface leaves every operation to the wire (behaviour
// §16.4).
func TestBackendPluginRules(t *testing.T) {
	counter := map[string]string{"create_booking": "bookings"}
	wireFail := want{verdict: "FAIL", total: 30, violations: []string{violationDuplicate}, patches: []string{"GHOST_WRITE"},
		observations: []string{obsOtherWriteAfterUncert}}
	stands := func(w want, reason string, failures int) want {
		w.check = func(t *testing.T, r report.Report, sc report.Score, ps []report.Patch) {
			opsWant("null", "wire", "null", "wire")(t, r, sc, ps)
			if len(r.PluginFailures) != failures {
				t.Errorf("pluginFailures %+v, want %d", r.PluginFailures, failures)
			}
			if failures > 0 && (len(r.PluginFailures) == 0 || !strings.Contains(r.PluginFailures[0].Detail, reason)) {
				t.Errorf("pluginFailures %+v, want %q", r.PluginFailures, reason)
			}
		}
		return w
	}
	runRules(t, []rule{
		{name: "attributed 1 and 1: Ada deduplicated by the backend, PASS", cfg: pluginCfg(answer(n64(1), n64(1)), nil), build: twoBookings(2),
			want: want{verdict: "PASS", total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecuted},
				observations: []string{obsDeduplicatedByBackend, obsOtherWriteAfterUncert}, check: opsWant("1", "backend", "1", "wire")}},
		{name: "attributed 2 to Ada, whose retry the wire judged unknown: duplicate decided by the backend", cfg: func() Config { c := pluginCfg(answer(n64(2), n64(1)), nil); c.Scenario = ""; return c }(),
			build: func(s *sess) {
				s.snap("before", 0)
				s.ok(s.write("create_booking", ada))
				s.unknown(s.write("create_booking", ada))
				s.ok(s.write("create_booking", bob))
				s.snap("after", 3)
				s.end()
			},
			want: want{verdict: "FAIL", reason: `by the backend's count (effect attributed by state plugin "fake" rose by 2; the wire saw 1 execution(s))`, total: 49, capped: true,
				violations: []string{violationDuplicate}, patches: []string{"IDEMPOTENCY"}, observations: []string{obsOtherWriteAfterUncert},
				outcomes: []report.OperationOutcome{report.OperationDuplicate, report.OperationExecuted},
				check: func(t *testing.T, r report.Report, sc report.Score, ps []report.Patch) {
					opsWant("2", "backend", "1", "wire")(t, r, sc, ps)
					if len(r.Violations) == 0 || !strings.Contains(r.Violations[0].Message, `The effect attributed by state plugin "fake" rose by 2`) {
						t.Errorf("violations %+v", r.Violations)
					}
				}}},
		{name: "null for Ada: the wire judgement stands for her", cfg: pluginCfg(answer(nil, n64(1)), nil), build: twoBookings(2),
			want: func() want { w := wireFail; w.check = opsWant("null", "wire", "1", "wire"); return w }()},
		{name: "0 for Ada against two wire executions: BACKEND_DISAGREES, the wire stands", cfg: pluginCfg(answer(n64(0), n64(1)), nil), build: twoBookings(1),
			want: func() want {
				w := wireFail
				w.observations = []string{obsBackendDisagrees, obsOtherWriteAfterUncert}
				w.check = opsWant("0", "wire", "1", "wire")
				return w
			}()},
		{name: "the counter contradicts the attribution: refused", cfg: pluginCfg(answer(n64(1), n64(1)), counter), build: twoBookings(3),
			want: stands(wireFail, "", 0)},
		{name: "the counter agrees with the attribution: accepted", cfg: pluginCfg(answer(n64(1), n64(1)), counter), build: twoBookings(2),
			want: want{verdict: "PASS", total: 100, observations: []string{obsDeduplicatedByBackend, obsOtherWriteAfterUncert}, check: opsWant("1", "backend", "1", "wire")}},
		{name: "a failing plugin: the wire judgement stands", cfg: pluginCfg(&fakeState{name: "fake", fn: func(StateInput) (map[string]*int64, error) {
			return nil, errors.New("plugin fake failed: state: deadline of 100ms exceeded")
		}}, nil), build: twoBookings(2), want: stands(wireFail, "", 0)},
		{name: "a missing entry is refused", cfg: pluginCfg(answer(n64(1)), nil), build: twoBookings(2), want: stands(wireFail, `no entry for operation "op-2"`, 1)},
		{name: "an unknown operation id is refused", cfg: pluginCfg(&fakeState{name: "fake", fn: func(StateInput) (map[string]*int64, error) {
			return map[string]*int64{"op-1": n64(1), "op-2": n64(1), "op-9": n64(1)}, nil
		}}, nil), build: twoBookings(2), want: stands(wireFail, `operation "op-9", which was not asked about`, 1)},
		{name: "an effect beyond 2^53 is refused", cfg: pluginCfg(answer(n64(1), n64(1<<53+1)), nil), build: twoBookings(2), want: stands(wireFail, "outside ±2^53", 1)},
		{name: "a panicking plugin", cfg: pluginCfg(&fakeState{name: "fake", fn: func(StateInput) (map[string]*int64, error) { panic("boom") }}, nil),
			build: twoBookings(2), want: stands(wireFail, "panic: boom", 1)},
		{name: "a failing plugin also withholds a lone operation's counter effect", cfg: pluginCfg(&fakeState{name: "fake", fn: func(StateInput) (map[string]*int64, error) {
			return nil, errors.New("plugin fake failed: state: trap")
		}}, counter), build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", ada))
			s.ok(s.write("create_booking", ada))
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "FAIL", total: 0, violations: []string{violationDuplicate}, patches: []string{"GHOST_WRITE"}, check: opWant("null", "wire")}},
		{name: "null from the plugin: a lone operation keeps its counter's effect", cfg: pluginCfg(answer(nil), counter), build: func(s *sess) {
			s.snap("before", 0)
			s.f1(s.write("create_booking", ada))
			s.ok(s.write("create_booking", ada))
			s.snap("after", 1)
			s.end()
		}, want: want{verdict: "PASS", total: 100, observations: []string{obsDeduplicatedByBackend}, check: opWant("1", "backend")}},
		{name: "a failed probe: the plugin is not asked", cfg: pluginCfg(answer(n64(1), n64(1)), nil), build: twoBookings(-1), want: stands(wireFail, "", 0)},
	})
}

// TestBackendPluginInput: the hook is asked once the after snapshot came,
// with every write operation (id, tool, arguments, wire counts) and both
// snapshots; its failure is the state object's error.
func TestBackendPluginInput(t *testing.T) {
	p := answer(n64(1), n64(1))
	s := newSess()
	twoBookings(2)(s)
	s.judge(pluginCfg(p, nil)).AppendFile(nil, report.FileMeta{})
	b, _ := json.Marshal(p.got)
	want := `{"operations":[{"id":"op-1","tool":"create_booking","arguments":{"guest":"Ada","idempotency_key":"k1"},"executions":2,"unknown":0},` +
		`{"id":"op-2","tool":"create_booking","arguments":{"guest":"Bob","idempotency_key":"k2"},"executions":1,"unknown":0}],` +
		`"before":{"at":"before","counters":{"bookings":0}},"after":{"at":"after","counters":{"bookings":2}}}`
	if p.calls != 1 || string(b) != want {
		t.Errorf("%d calls, input\n%s\nwant\n%s", p.calls, b, want)
	}
	bad := &fakeState{name: "fake", fn: func(StateInput) (map[string]*int64, error) { return nil, errors.New("plugin fake failed: state: trap") }}
	s = newSess()
	twoBookings(2)(s)
	var f struct {
		State *report.StateInfo `json:"state"`
	}
	if err := json.Unmarshal(s.judge(pluginCfg(bad, nil)).AppendFile(nil, report.FileMeta{}), &f); err != nil {
		t.Fatal(err)
	}
	if f.State == nil || f.State.Error == nil || *f.State.Error != "state plugin fake failed, the wire judgement stands for every operation: plugin fake failed: state: trap" {
		t.Errorf("state %+v", f.State)
	}
}
