package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/state"
)

// TestProbeSnapshotsInOrder: the before snapshot is an event before any
// call (and the report file shows it), a write snapshot follows each
// forwarded write's upstream answer and precedes that answer's event
// (--state-every-write; none for a read), the after snapshot precedes the
// end; a failed probe is one WARNING line, a counter missing after the
// session another (behaviour §16.1, §16.2).
func TestProbeSnapshotsInOrder(t *testing.T) {
	var runs []string
	h := newHarness(t, nil, func(o *Options) {
		o.Probe = &Probe{EveryWrite: true, Map: map[string]string{"create_booking": "bookings", "pay": "paid"},
			Run: func(at string) state.Snapshot {
				runs = append(runs, at)
				if at == "write" {
					return state.Snapshot{At: at, Error: "state probe: exit status 2"}
				}
				return state.Snapshot{At: at, Counters: map[string]json.Number{"bookings": json.Number(map[string]string{"before": "0", "after": "1"}[at])}}
			}}
	})
	if err := h.p.Start(); err != nil {
		t.Fatal(err)
	}
	writesBefore := h.report.count()
	h.p.ProbeBefore()
	if h.report.count() != writesBefore+1 {
		t.Errorf("the before snapshot wrote %d report files, want 1", h.report.count()-writesBefore)
	}
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	h.call(t, 1, "create_booking", classify.Write, u)
	h.call(t, 2, "get_booking", classify.Read, u)
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	if strings.Join(runs, ",") != "before,write,after" {
		t.Errorf("probe runs %v", runs)
	}
	var got []string
	for _, ev := range h.judge.list() {
		s := evString(ev)
		if ev.Kind == judge.EventState {
			s += " " + ev.State.At
		}
		got = append(got, s)
	}
	want := []string{"state#0 before", "call#1 create_booking write", "forwarded#1", "state#0 write", "answer#1 executed",
		"call#2 get_booking read", "forwarded#2", "answer#2 executed", "state#0 after", "end#0"}
	if !equalStrings(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
	stderr := h.stderr.String()
	for _, line := range []string{
		"[agent-harness] WARNING: state probe (write) failed: state probe: exit status 2; the wire judgement stands\n",
		`[agent-harness] WARNING: state probe: no effect for pay: before the session: state probe: no counter "paid" in the output ("bookings"); the wire judgement stands` + "\n",
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr lacks %q:\n%s", line, stderr)
		}
	}
	if strings.Contains(stderr, "for create_booking") {
		t.Errorf("a warning for a tool with an effect:\n%s", stderr)
	}
}
