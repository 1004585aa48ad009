package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/jsonschema"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// TestRejudgeResentBy: the trace keeps what duplicate.resentBy reads — the
// params with _meta's tool-call id, each call's request number and the
// transport-level delivery of a fault — so `judge TRACE` gives the same
// resentBy and patches as the live judge, and the lines match the schema.
func TestRejudgeResentBy(t *testing.T) {
	start := time.Unix(1000, 0)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	call := func(ms int, id int64, seq int64, meta string) judge.Event {
		params := `{"name":"create_booking","arguments":{"room":12}` + meta + `}`
		return judge.Event{Kind: judge.EventCall, Time: at(ms), Call: id, Tool: "create_booking", Class: classify.Write,
			Arguments: json.RawMessage(`{"room":12}`), Params: json.RawMessage(params), Session: "s1", RequestSeq: seq}
	}
	session := judge.Event{Kind: judge.EventSession, Time: at(0), Session: "s1", Transport: "http"}
	f1 := func(ms int, id int64) []judge.Event {
		return []judge.Event{
			{Kind: judge.EventForwarded, Time: at(ms), Call: id, Session: "s1"},
			{Kind: judge.EventAnswer, Time: at(ms + 1), Call: id, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout", ResponseDigest: "a", Session: "s1"},
			{Kind: judge.EventDelivered, Time: at(ms + 1), Call: id, TransportFault: true, Session: "s1"},
		}
	}
	ok := func(ms int, id int64) []judge.Event {
		return []judge.Event{
			{Kind: judge.EventForwarded, Time: at(ms), Call: id, Session: "s1"},
			{Kind: judge.EventAnswer, Time: at(ms + 1), Call: id, Outcome: judge.Executed, ResponseDigest: "b", Session: "s1"},
		}
	}
	build := func(metaA, metaB string) []judge.Event {
		def := json.RawMessage(`{"name":"create_booking","inputSchema":{"type":"object"}}`)
		tools := judge.Event{Kind: judge.EventTools, Time: at(1), Tools: []string{"create_booking"},
			Listing: []classify.Entry{{Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{}, Definition: def}}}
		evs := []judge.Event{session, tools, call(2, 1, 2, metaA)}
		evs = append(evs, f1(3, 1)...)
		evs = append(evs, call(20, 2, 3, metaB))
		evs = append(evs, ok(21, 2)...)
		return append(evs, judge.Event{Kind: judge.EventEnd, Time: at(30)})
	}
	v, err := jsonschema.New(Schema)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, metaA, metaB, want, patch string
	}{
		{"identical re-send after the dropped connection", "", "", report.ResentByClientLibrary, judge.PatchClientRetry},
		{"a new tool-call id", `,"_meta":{"agent-harness/toolCallId":"c1"}`, `,"_meta":{"agent-harness/toolCallId":"c2"}`, report.ResentByModel, judge.PatchGhostWrite},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs := build(tc.metaA, tc.metaB)
			live := judge.Replay(judge.Config{Scenario: "F1", Kind: "proxy"}, evs)
			path := filepath.Join(t.TempDir(), "t.trace")
			w, err := Create(path, Header{Settings: Settings{Scenario: "F1", Mode: "deterministic", Kind: "proxy"},
				Transport: report.Transport{Agent: "http", Upstream: "stdio"}}, start)
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range evs {
				if err := w.Record(ev); err != nil {
					t.Fatal(err)
				}
			}
			w.Close()
			b, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
				if errs := v.Validate(l); len(errs) > 0 {
					t.Errorf("%s: %v", l, errs)
				}
			}
			if !bytes.Contains(b, []byte(`"transportFault":true`)) || !bytes.Contains(b, []byte(`"requestSeq":3`)) {
				t.Errorf("trace lacks transportFault or requestSeq:\n%s", b)
			}
			tr, err := Read(bytes.NewReader(b))
			if err != nil {
				t.Fatal(err)
			}
			j, _ := rejudge(tr, Options{Settings: tr.Header.Settings})
			for name, jj := range map[string]*judge.Judge{"live": live, "re-judged": j} {
				r, ps := jj.Report(), jj.Patches()
				if len(r.Violations) != 1 || r.Violations[0].Duplicate == nil || r.Violations[0].Duplicate.ResentBy != tc.want {
					t.Fatalf("%s: violations %+v, want resentBy %s", name, r.Violations, tc.want)
				}
				if len(ps) != 1 || ps[0].Type != tc.patch {
					t.Errorf("%s: patches %+v, want %s", name, ps, tc.patch)
				}
			}
		})
	}
	if len(v.Validate([]byte(`{"type":"delivered","t":1,"call":1,"transportFault":false}`))) == 0 {
		t.Error("schema accepts transportFault false (the writer omits it)")
	}
}

// TestReadRefusesForgedResentFacts: what duplicate.resentBy reads is
// checked like the rest of a trace — a transport-level delivery over a
// stdio agent side or of an answer without a fault, a request number used
// twice in a session, a request number below 1 — each refused naming the
// line and the rule; the writer's own lines are read.
func TestReadRefusesForgedResentFacts(t *testing.T) {
	lines := doubleBooking(t) // stdio (the header's transport empty); line 7 delivers call 1's F1, lines 4 and 8 are the calls
	withSeq := edited(edited(lines, 4, replaced(`"class"`, `"requestSeq":2,"class"`)), 8, replaced(`"class"`, `"requestSeq":3,"class"`))
	if _, err := Read(bytes.NewReader(joinLines(withSeq))); err != nil {
		t.Fatalf("request numbers refused: %v", err)
	}
	httpHeader := replaced(`"transport":{"agent":""`, `"transport":{"agent":"http"`)
	if !strings.Contains(lines[0], `"transport":{"agent":""`) {
		t.Fatalf("header %s", lines[0])
	}
	transport := edited(edited(lines, 1, httpHeader), 7, replaced(`"call":1`, `"call":1,"transportFault":true`))
	if _, err := Read(bytes.NewReader(joinLines(transport))); err != nil {
		t.Fatalf("a transport-level delivery over HTTP refused: %v", err)
	}
	for _, tc := range []struct {
		name  string
		trace []string
		want  string
	}{
		{"transport-level over stdio", edited(lines, 7, replaced(`"call":1`, `"call":1,"transportFault":true`)),
			`line 7: call 1's fault is recorded as delivered at the transport level, the header's agent side is stdio (rule: a transport-level delivery only of an injected fault, over an HTTP agent side)`},
		{"transport-level delivery of an answer without a fault", edited(edited(transport, 6, replaced(`"fault":"timeout",`, ``)), 6, replaced(`"scenario":"F1",`, ``)),
			"line 7: call 1's delivery is recorded as transport-level, its answer carried no fault"},
		{"a request number twice", edited(withSeq, 8, replaced(`"requestSeq":3`, `"requestSeq":2`)),
			"line 8: call 2 has request number 2 of session s1, which an earlier call of the session has (rule: a session's request numbers are distinct)"},
		{"request number 0", edited(lines, 4, replaced(`"class"`, `"requestSeq":0,"class"`)), "line 4: $.requestSeq"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(joinLines(tc.trace)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
