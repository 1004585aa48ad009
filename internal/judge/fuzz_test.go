package judge

import (
	"bytes"
	"encoding/json"
	"strconv"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/state"
)

// eventsFromBytes decodes fuzz input into an event sequence: each group of
// four bytes is one event (kind, call id, tool/arguments/outcome choices,
// time step). Call ids are small so answers, repeats and unknown ids all
// occur.
func eventsFromBytes(data []byte) []Event {
	classes := []classify.Class{classify.Write, classify.Write, classify.Read, classify.Unclassified, classify.Unknown, ""}
	outcomes := []Outcome{Executed, InjectedNotExecuted, UpstreamRejected, Unknown, UnknownTool, "garbage"}
	faults := []string{"", "timeout", "rate_limit", "truncated_json", "server_error", "chaos", "partial_success"}
	args := []string{`{"a":1}`, `{"a":"1"}`, `{"a":1,"idempotency_key":"k"}`, `{"A":1}`, `[1,2]`, `null`, ``, `{"a":`, `{"a":1e999999}`,
		`{"a":"\ud83d"}`, "{\"a\":\"\xff\"}", `{"a":1,"A":2}`, `{"a":null}`}
	tools := []string{"create_booking", "pay", "get_x"}
	var evs []Event
	now := t0
	for i := 0; i+3 < len(data); i += 4 {
		b0, b1, b2, b3 := data[i], data[i+1], data[i+2], data[i+3]
		now = now.Add(time.Duration(b3) * 100 * time.Millisecond)
		ev := Event{Time: now, Call: int64(b1 % 16)}
		switch b0 % 8 {
		case 0, 1, 2:
			ev.Kind = EventCall
			ev.Tool = tools[int(b2)%len(tools)]
			ev.Class = classes[int(b2>>2)%len(classes)]
			ev.Arguments = json.RawMessage(args[int(b0>>3)%len(args)])
			ev.AcceptsKey = b2&0x80 != 0
			ev.Idempotent = b1&0x40 != 0
		case 3, 4, 5:
			ev.Kind = EventAnswer
			ev.Outcome = outcomes[int(b2)%len(outcomes)]
			ev.Fault = faults[int(b2>>3)%len(faults)]
			if b0&0x80 != 0 {
				ev.Scenario = "F1"
			}
			ev.RetryAfterMs = int64(b0>>3) * 1000
			ev.ResponseDigest = string(rune('a' + b2%3))
		case 6:
			ev.Kind = EventForwarded
			if b2&0x80 != 0 {
				// A delivery; with a fault, ahead of the answer it is a
				// handoff (handoff.go).
				ev.Kind = EventDelivered
				ev.Fault = faults[int(b2>>3)%len(faults)]
				ev.TransportFault = b2&0x40 != 0
			}
		default:
			switch b2 % 3 {
			case 0:
				ev.Kind = EventEnd
			case 1:
				// A plugin failure or disabling: the host's status, which
				// the judge reads at report time.
				ev.Kind = eventPluginTest
				if b0&0x80 != 0 {
					ev.Detail = "disabled"
				}
			default:
				if b0&0x40 == 0 {
					ev.Kind = EventKind("bogus")
					break
				}
				// A state snapshot (behaviour §16): before, after or
				// write; a small count, or a failed probe.
				sn := &state.Snapshot{At: []string{"before", "after", "write", "during"}[int(b1>>4)%4],
					Counters: map[string]json.Number{"n": json.Number(strconv.Itoa(int(b2>>2)%4 - 1))}}
				if b0&0x20 != 0 {
					sn = &state.Snapshot{At: sn.At, Error: "state probe: exit status 1"}
				}
				ev.Kind, ev.State, ev.Call = EventState, sn, 0
			}
		}
		evs = append(evs, ev)
	}
	return evs
}

// takesAsHandoff reports whether j would take ev as a handoff (or one
// beyond maxHandoffs), as onDelivered decides.
func (j *Judge) takesAsHandoff(ev Event) bool {
	if ev.Kind != EventDelivered || ev.Fault == "" {
		return false
	}
	pc := j.calls[ev.Call]
	return pc != nil && pc.att != nil && !pc.done && pc.kind == callWrite
}

// eventPluginTest in eventsFromBytes's output is a plugin failure (Detail
// "disabled": the disabling) for the fuzzed host status, not a judge event.
const eventPluginTest EventKind = "test-plugin-failure"

func FuzzJudgeEvents(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 0, 1, 3, 1, 6, 1, 0, 2, 0, 1, 3, 2, 0, 1})             // ghost write, then re-send executed
	f.Add([]byte{0, 1, 0, 1, 6, 1, 0, 0, 0, 2, 0, 1, 7, 0, 0, 0, 3, 1, 0, 1}) // in flight at end, late answer
	f.Add([]byte{0x80, 1, 0, 0, 0x84, 1, 17, 0, 0x80, 1, 0, 1, 0, 3, 4, 0})   // 429 and early re-send
	// F1 on a task write: forwarded, the timeout handed over, a re-send
	// executed, then the hidden task's ghost write.
	f.Add([]byte{1, 1, 0, 1, 6, 1, 0, 1, 6, 1, 0xb0, 1, 0, 2, 0, 1, 6, 2, 0, 1, 3, 2, 0, 1, 3, 1, 0x0c, 1, 7, 0, 0, 1})
	// With a state map: before snapshot (n = 0), ghost write, re-send, after snapshot (n = 1).
	f.Add([]byte{0x81, 0x00, 0x06, 0, 0x80, 1, 0, 1, 3, 1, 6, 1, 0, 2, 0, 1, 3, 2, 0, 1, 0x47, 0x10, 0x0a, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg := Config{}
		if len(data) > 0 {
			cfg.Scenario = []string{"", "F1", "F2", "F4", "chaos"}[int(data[0])%5]
			if data[0]&0x80 != 0 {
				cfg.State = StateConfig{Command: "probe", Map: map[string]string{"create_booking": "n", "pay": "missing"}}
			}
		}
		var host, host2 fakePlugins
		cfg.PluginStatus = host.status
		j := New(cfg)
		// j2 judges the same events without the handoffs j took as ones
		// (handoff.go): a handoff moves labels, never the verdict or an
		// operation's outcome.
		cfg2 := cfg
		cfg2.PluginStatus = host2.status
		j2 := New(cfg2)
		for i, ev := range eventsFromBytes(data) {
			if ev.Kind == eventPluginTest {
				for _, h := range []*fakePlugins{&host, &host2} {
					if ev.Detail == "disabled" {
						h.disable("p", "disabled after 5 consecutive failures")
					} else {
						h.fail("p", "trap")
					}
				}
				checkInvariants(t, j)
				continue
			}
			if !j.takesAsHandoff(ev) {
				j2.Apply(ev)
			}
			j.Apply(ev)
			checkInvariants(t, j)
			if i%4 == 0 {
				_ = j.AppendFile(nil, report.FileMeta{}) // incremental encodings, as in the proxy
			}
		}
		v, _ := j.Verdict()
		if v2, reason2 := j2.Verdict(); v != v2 {
			t.Fatalf("with its handoffs the verdict is %s, without them %s (%s)", v, v2, reason2)
		}
		ops, ops2 := j.Report().Operations, j2.Report().Operations
		for k := range min(len(ops), len(ops2)) {
			if ops[k].Outcome != ops2[k].Outcome {
				t.Fatalf("with its handoffs %s is %s, without them %s", ops[k].ID, ops[k].Outcome, ops2[k].Outcome)
			}
		}
		out := j.AppendFile(nil, report.FileMeta{})
		if !json.Valid(out) {
			t.Fatalf("invalid report file JSON: %s", out)
		}
		var file struct {
			Report  json.RawMessage `json:"report"`
			Patches json.RawMessage `json:"patches"`
		}
		if err := json.Unmarshal(out, &file); err != nil {
			t.Fatal(err)
		}
		if want, _ := json.Marshal(j.Report()); !bytes.Equal(file.Report, want) {
			t.Fatalf("file report differs from Report():\n%s", lineDiff(indent(want), indent(file.Report)))
		}
		if want, _ := json.Marshal(j.Patches()); !bytes.Equal(file.Patches, want) {
			t.Fatalf("file patches differ from Patches():\n%s", lineDiff(indent(want), indent(file.Patches)))
		}
		_ = j.Markdown()
	})
}

func checkInvariants(t *testing.T, j *Judge) {
	t.Helper()
	v, reason := j.Verdict()
	s := j.Score()
	switch v {
	case report.VerdictPass, report.VerdictFail, report.VerdictNotTested:
	default:
		t.Fatalf("verdict %q", v)
	}
	if reason == "" {
		t.Fatal("empty verdictReason")
	}
	if v == report.VerdictNotTested && s.Total != nil {
		t.Fatalf("NOT_TESTED with score %d", *s.Total)
	}
	if v != report.VerdictNotTested && (s.Total == nil || *s.Total < 0 || *s.Total > 100) {
		t.Fatalf("%s with score %v", v, s.Total)
	}
	if v == report.VerdictFail && *s.Total > 49 {
		t.Fatalf("FAIL with score %d", *s.Total)
	}
	if s.Capped && (v != report.VerdictFail || *s.Uncapped <= 49) {
		t.Fatalf("capped without lowering: %+v", s)
	}
	if v == report.VerdictPass && len(j.Report().Violations) > 0 {
		t.Fatal("PASS with violations")
	}
}

// FuzzJudgeArguments feeds arbitrary argument bytes through a ghost write
// and a second write of the same tool (operation identity, near-duplicate
// comparison, report encoding).
func FuzzJudgeArguments(f *testing.F) {
	f.Add([]byte(`{"a":1}`), []byte(`{"a":"1"}`))
	f.Add([]byte(`{"a":1,"idempotency_key":"x"}`), []byte(`{"idempotency_key":"y","a":1.0}`))
	f.Add([]byte(`[[[[[[[[]]]]]]]]`), []byte(`"\ud800"`))
	f.Add([]byte(`{"a":"\u00e9"}`), []byte("{\"a\":\"e\u0301\"}"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		s := newSess()
		s.f1(s.write("create_booking", string(a)))
		s.ok(s.write("create_booking", string(b)))
		j := s.judge(Config{Scenario: "F1"})
		checkInvariants(t, j)
		if v, _ := j.Verdict(); v == report.VerdictPass {
			// Identical bytes are the same operation: never a PASS.
			if string(a) == string(b) {
				t.Fatalf("identical arguments passed: %q", a)
			}
		}
		if !json.Valid(j.AppendFile(nil, report.FileMeta{})) {
			t.Fatal("invalid JSON")
		}
	})
}
