package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/state"
)

// dedupedBooking is doubleBooking with state snapshots around it (the
// backend counted one booking) and the header's state map: lines 2 and
// 12 are the before and after snapshots.
func dedupedBooking(t *testing.T) []string {
	t.Helper()
	lines := doubleBooking(t)
	h := lines[0]
	h = strings.Replace(h, `"pluginConfig":null`, `"pluginConfig":null,"stateCommand":"probe","stateMap":{"create_booking":"bookings"}`, 1)
	if h == lines[0] {
		t.Fatalf("header %s", h)
	}
	out := []string{h, `{"type":"state","t":0,"at":"before","counters":{"bookings":0}}`}
	out = append(out, lines[1:len(lines)-1]...)
	return append(out, `{"type":"state","t":9,"at":"after","counters":{"bookings":1}}`, lines[len(lines)-1])
}

// TestTraceStateLines: state lines are written by Record, read back, and
// checked (behaviour §16.5): the order of the snapshots, a failed probe
// without counters, the schema; Rejudge judges with them, and with a map
// given anew.
func TestTraceStateLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s.trace")
	w, err := Create(path, Header{Settings: Settings{Kind: "proxy", Mode: "deterministic", StateCommand: "probe", StateMap: map[string]string{"a": "b"}}}, time.Unix(0, 0))
	if err != nil {
		t.Fatal(err)
	}
	w.Record(judge.Event{Kind: judge.EventState, Time: time.Unix(0, 0), State: &state.Snapshot{At: "before", Counters: map[string]json.Number{"b": "2"}, Invalid: map[string]string{"c": "not a number"}}})
	w.Record(judge.Event{Kind: judge.EventState, Time: time.Unix(1, 0), State: &state.Snapshot{At: "after", Error: "state probe: timed out after 1s"}})
	w.Close()
	b, _ := os.ReadFile(path)
	want := `{"type":"state","t":0,"at":"before","counters":{"b":2},"invalid":{"c":"not a number"}}` + "\n" +
		`{"type":"state","t":1000,"detail":"state probe: timed out after 1s","at":"after"}` + "\n"
	if _, lines, _ := strings.Cut(string(b), "\n"); lines != want {
		t.Errorf("lines:\n%s\nwant:\n%s", lines, want)
	}
	tr, err := Read(bytes.NewReader(b))
	if err != nil || len(tr.Lines) != 2 || tr.Header.Settings.StateMap["a"] != "b" {
		t.Fatalf("read: %v %+v", err, tr)
	}

	good := dedupedBooking(t)
	tr, err = Read(bytes.NewReader(joinLines(good)))
	if err != nil {
		t.Fatal(err)
	}
	judgeWith := func(m map[string]string) report.Report {
		s := tr.Header.Settings
		s.StateMap = m
		j, _ := Rejudge(tr, Options{Settings: s, Judge: judge.Config{Scenario: "F1", State: judge.StateConfig{Command: s.StateCommand, Map: m}}})
		return j.Report()
	}
	if r := judgeWith(tr.Header.Settings.StateMap); r.Verdict != "PASS" || string(r.Operations[0].Effects) != "1" || r.Operations[0].DecidedBy != "backend" {
		t.Errorf("re-judged: %s %s %s", r.Verdict, r.Operations[0].Effects, r.Operations[0].DecidedBy)
	}
	if r := judgeWith(map[string]string{"create_booking": "other"}); r.Verdict != "FAIL" || string(r.Operations[0].Effects) != "null" {
		t.Errorf("with another map: %s %s", r.Verdict, r.Operations[0].Effects)
	}

	// A call in flight when the grace ran out is answered after the after
	// snapshot: accepted, and its operation is not cleared by the effect.
	n := len(good)
	late := append(append(append([]string{}, good[:n-3]...), good[n-2]), good[n-3], good[n-1])
	if !strings.Contains(late[n-2], `"answer"`) || !strings.Contains(late[n-3], `"at":"after"`) {
		t.Fatalf("late: %q", late)
	}
	if tr, err := Read(bytes.NewReader(joinLines(late))); err != nil {
		t.Errorf("a late answer after the after snapshot: %v", err)
	} else if j, _ := Rejudge(tr, Options{Settings: tr.Header.Settings, Judge: judge.Config{Scenario: "F1", State: judge.StateConfig{Command: "probe", Map: tr.Header.Settings.StateMap}}}); j.Report().Verdict != "FAIL" {
		t.Errorf("a late answer: %s, want the wire's FAIL", j.Report().Verdict)
	}
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"before after a call", append(append([]string{good[0]}, good[2:5]...), good[1]), "a before snapshot after a call or another snapshot"},
		{"two befores", append([]string{good[0], good[1]}, good[1:]...), "a before snapshot after a call or another snapshot"},
		{"a snapshot after the after snapshot", append(append([]string{}, good[:len(good)-1]...), good[1]), `a line of type "state" after the after snapshot`},
		{"a call after the after snapshot", append(append([]string{}, good[:len(good)-1]...), strings.Replace(good[4], `"call":1`, `"call":7`, 1)), `a line of type "call" after the after snapshot`},
		{"counters and a failure", edited(good, 2, func(l string) string { return strings.Replace(l, `}}`, `},"detail":"x"}`, 1) }), "with both counters and a failure"},
		{"a counter that is no number", edited(good, 2, func(l string) string { return strings.Replace(l, `"bookings":0`, `"bookings":"0"`, 1) }), "rule: every line matches trace.schema.json"},
		{"an unknown at", edited(good, 2, func(l string) string { return strings.Replace(l, `"before"`, `"during"`, 1) }), "rule: every line matches trace.schema.json"},
	} {
		if _, err := Read(bytes.NewReader(joinLines(c.lines))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}

// TestTraceStateLinesOnlyWithAProbe (red team 3, finding 4): state lines
// in a trace whose header has no stateCommand re-judged a duplicate as
// deduplicated by the backend; they are refused, and so is a snapshot the
// writer never takes first (its before snapshot precedes every other).
func TestTraceStateLinesOnlyWithAProbe(t *testing.T) {
	good := dedupedBooking(t)
	noProbe := edited(good, 1, replaced(`"stateCommand":"probe",`, ``))
	if noProbe[0] == good[0] {
		t.Fatalf("header %s", good[0])
	}
	write := `{"type":"state","t":5,"at":"write","counters":{"bookings":1}}`
	for _, c := range []struct {
		name  string
		lines []string
		want  string
	}{
		{"no stateCommand", noProbe, "line 2: a before snapshot, the header has no stateCommand (rule: state lines only in a trace whose header has a stateCommand)"},
		{"no stateCommand, after only", append(pick(noProbe, 1), noProbe[2:]...), "a after snapshot, the header has no stateCommand"},
		{"after without before", append(pick(good, 1), good[2:]...), "a after snapshot without a before snapshot ahead of it (rule: one before snapshot ahead of every call and every other snapshot"},
		{"write without before", append(append(pick(good, 1), good[2:8]...), write), "a write snapshot without a before snapshot ahead of it"},
	} {
		if _, err := Read(bytes.NewReader(joinLines(c.lines))); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	withWrite := append(append(append([]string{}, good[:8]...), write), good[8:]...)
	if _, err := Read(bytes.NewReader(joinLines(withWrite))); err != nil {
		t.Errorf("a write snapshot between before and after: %v", err)
	}
}
