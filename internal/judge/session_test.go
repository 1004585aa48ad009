package judge

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// sess builds an event list with an injected clock: every event happens at
// the session's current time, which only moves with wait.
type sess struct {
	evs     []Event
	now     time.Time
	next    int64
	plugins fakePlugins
}

var t0 = time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)

func newSess() *sess { return &sess{now: t0} }

func (s *sess) wait(ms int64) *sess {
	s.now = s.now.Add(time.Duration(ms) * time.Millisecond)
	return s
}

func (s *sess) emit(ev Event) {
	ev.Time = s.now
	s.evs = append(s.evs, ev)
}

// call sends a call and returns its id.
func (s *sess) call(tool string, class classify.Class, args string) int64 {
	s.next++
	ev := Event{Kind: EventCall, Call: s.next, Tool: tool, Class: class}
	if args != "" {
		ev.Arguments = json.RawMessage(args)
	}
	s.emit(ev)
	return s.next
}

func (s *sess) write(tool, args string) int64 { return s.call(tool, classify.Write, args) }

// writeK is a write call of a tool whose schema accepts a key field.
func (s *sess) writeK(tool, args string) int64 {
	s.next++
	s.emit(Event{Kind: EventCall, Call: s.next, Tool: tool, Class: classify.Write, Arguments: json.RawMessage(args), AcceptsKey: true})
	return s.next
}

func (s *sess) forwarded(id int64) { s.emit(Event{Kind: EventForwarded, Call: id}) }

func (s *sess) answer(id int64, o Outcome, scenario, fault string) {
	s.emit(Event{Kind: EventAnswer, Call: id, Outcome: o, Scenario: scenario, Fault: fault})
}

// ok: forwarded and executed, the agent gets the upstream's result.
func (s *sess) ok(id int64) *sess {
	s.forwarded(id)
	s.answer(id, Executed, "", "")
	return s
}

func (s *sess) okDigest(id int64, digest string) {
	s.forwarded(id)
	s.emit(Event{Kind: EventAnswer, Call: id, Outcome: Executed, ResponseDigest: digest})
}

// f1: executed, the agent sees a timeout (ghost write).
func (s *sess) f1(id int64) {
	s.forwarded(id)
	s.answer(id, Executed, "F1", "timeout")
}

func (s *sess) f2(id int64, retryAfterMs int64) {
	s.emit(Event{Kind: EventAnswer, Call: id, Outcome: InjectedNotExecuted, Scenario: "F2", Fault: "rate_limit", RetryAfterMs: retryAfterMs})
}

func (s *sess) f3(id int64) { s.answer(id, InjectedNotExecuted, "F3", "truncated_json") }
func (s *sess) f5(id int64) { s.answer(id, InjectedNotExecuted, "F5", "server_error") }
func (s *sess) f4(id int64) {
	s.forwarded(id)
	s.answer(id, Executed, "F4", "")
}
func (s *sess) chaos(id int64) { s.answer(id, InjectedNotExecuted, "chaos", "chaos") }

func (s *sess) rejected(id int64) {
	s.forwarded(id)
	s.answer(id, UpstreamRejected, "", "")
}

func (s *sess) unknown(id int64) {
	s.forwarded(id)
	s.answer(id, Unknown, "", "")
}

// read makes a successful read call.
func (s *sess) read() {
	id := s.call("get_booking", classify.Read, `{"guest":"Ada"}`)
	s.answer(id, Executed, "", "")
}

func (s *sess) end() { s.emit(Event{Kind: EventEnd}) }

// pluginFailure has the plugin host count a failed call of plugin name.
func (s *sess) pluginFailure(name, detail string) { s.plugins.fail(name, detail) }

// pluginDisabled has the plugin host disable plugin name.
func (s *sess) pluginDisabled(name, detail string) { s.plugins.disable(name, detail) }

// judge replays the session; the plugins' status is the session's unless
// cfg has one.
func (s *sess) judge(cfg Config) *Judge {
	if cfg.PluginStatus == nil {
		cfg.PluginStatus = s.plugins.status
	}
	return Replay(cfg, s.evs)
}

// fakePlugins is a plugin host's status (Config.PluginStatus) for tests:
// plugins in the order they first failed, each failure counted and its
// first detail kept, as the host does.
type fakePlugins struct{ states []PluginState }

func (f *fakePlugins) get(name string) *PluginState {
	for i := range f.states {
		if f.states[i].Name == name {
			return &f.states[i]
		}
	}
	f.states = append(f.states, PluginState{Name: name})
	return &f.states[len(f.states)-1]
}

func (f *fakePlugins) fail(name, detail string) {
	st := f.get(name)
	st.Failures++
	if st.Detail == "" {
		st.Detail = detail
	}
}

func (f *fakePlugins) disable(name, detail string) {
	st := f.get(name)
	st.Disabled = true
	if st.Detail == "" {
		st.Detail = detail
	}
}

func (f *fakePlugins) status() []PluginState { return slices.Clone(f.states) }

// Naive and careful reference behaviours used by several tests.

// naive sends every write a second time right after the first answer.
func naive(scenario string) *sess {
	s := newSess()
	const args = `{"guest":"Ada","date":"2026-11-03"}`
	a := s.write("create_booking", args)
	switch scenario {
	case "F1":
		s.f1(a)
	case "F2":
		s.f2(a, 60000)
	case "F3":
		s.f3(a)
	case "F4":
		s.f4(a)
	case "F5":
		s.f5(a)
	}
	s.wait(5)
	b := s.write("create_booking", args)
	if scenario == "F4" {
		s.f4(b)
	} else {
		s.ok(b)
	}
	s.end()
	return s
}
