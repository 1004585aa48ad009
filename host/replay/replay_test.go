package replay_test

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/host/replay"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// record writes a trace of an F1 run: a write answered with the ghost
// timeout, then the same booking re-sent with a new idempotency key.
func record(t *testing.T, plugins []string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.trace")
	start := time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC)
	w, err := trace.Create(path, trace.Header{Settings: trace.Settings{Scenario: "F1", Mode: "deterministic",
		KeyFields: []string{"idempotency_key"}, Plugins: plugins}}, start)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	def := json.RawMessage(`{"name":"create_booking","inputSchema":{"type":"object","properties":{"ref":{"type":"string"}}}}`)
	evs := []judge.Event{
		{Kind: judge.EventTools, Time: at(1), Tools: []string{"create_booking"},
			Listing: []classify.Entry{{Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{}, Definition: def}}},
		{Kind: judge.EventCall, Time: at(2), Call: 1, Tool: "create_booking", Class: classify.Write,
			Params: json.RawMessage(`{"name":"create_booking","arguments":{"room":"12","ref":"a"}}`)},
		{Kind: judge.EventForwarded, Time: at(3), Call: 1},
		{Kind: judge.EventAnswer, Time: at(4), Call: 1, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout", ResponseDigest: "d1"},
		{Kind: judge.EventDelivered, Time: at(4), Call: 1},
		{Kind: judge.EventCall, Time: at(9), Call: 2, Tool: "create_booking", Class: classify.Write,
			Params: json.RawMessage(`{"name":"create_booking","arguments":{"room":"12","ref":"b"}}`)},
		{Kind: judge.EventForwarded, Time: at(10), Call: 2},
		{Kind: judge.EventAnswer, Time: at(11), Call: 2, Outcome: judge.Executed, ResponseDigest: "d2"},
		{Kind: judge.EventEnd, Time: at(12)},
	}
	for _, ev := range evs {
		if err := w.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

func judgeFile(t *testing.T, path string, o replay.Options) (*replay.Result, error) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	return replay.Judge(f, o)
}

// The recorded settings judge the two calls as two operations (ref is an
// argument); naming ref a key field makes them one operation executed
// twice.
func TestJudge(t *testing.T) {
	path := record(t, nil)
	r, err := judgeFile(t, path, replay.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "PASS" || r.Score == nil {
		t.Errorf("recorded settings: %s (%s), score %v; want PASS with a score", r.Verdict, r.Reason, r.Score)
	}
	r, err = judgeFile(t, path, replay.Options{KeyFields: []string{"ref"}})
	if err != nil {
		t.Fatal(err)
	}
	if r.Verdict != "FAIL" || !strings.Contains(r.Reason, "DUPLICATE_EXECUTION") {
		t.Errorf("ref as key field: %s (%s), want FAIL DUPLICATE_EXECUTION", r.Verdict, r.Reason)
	}
	var file struct {
		Verdict string `json:"verdict"`
	}
	if err := json.Unmarshal(r.Report, &file); err != nil || file.Verdict != "FAIL" {
		t.Errorf("report file verdict %q, %v", file.Verdict, err)
	}
}

func TestJudgeRefusesPluginTraces(t *testing.T) {
	if _, err := judgeFile(t, record(t, []string{"/abs/dates.wasm"}), replay.Options{}); !errors.Is(err, replay.ErrPlugins) {
		t.Errorf("error %v, want ErrPlugins", err)
	}
}

func TestJudgeUnreadable(t *testing.T) {
	if _, err := replay.Judge(strings.NewReader("not a trace\n"), replay.Options{}); err == nil {
		t.Error("no error for a file that is not a trace")
	}
}

// TestJudgeStatusAndForgery (issue 17): Result.Status says whether the
// trace has its end line, and a forged trace (a call number reused) is an
// error, not a verdict.
func TestJudgeStatusAndForgery(t *testing.T) {
	path := record(t, nil)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	r, err := judgeFile(t, path, replay.Options{})
	if err != nil || r.Status != "finished" {
		t.Fatalf("finished trace: %v", err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	cut := filepath.Join(t.TempDir(), "cut.trace")
	os.WriteFile(cut, []byte(strings.Join(lines[:6], "")), 0o644) // the header and call 1
	if r, err := judgeFile(t, cut, replay.Options{}); err != nil || r.Status != "interrupted" {
		t.Errorf("trace without end: %v, want status interrupted", err)
	}
	forged := filepath.Join(t.TempDir(), "forged.trace")
	os.WriteFile(forged, []byte(strings.Replace(string(b), `"call":2`, `"call":1`, 1)), 0o644)
	if _, err := judgeFile(t, forged, replay.Options{}); err == nil || !strings.Contains(err.Error(), "each call number once") {
		t.Errorf("forged trace: %v, want the rule", err)
	}
}
