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
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// doubleBooking writes the trace of a FAIL run: session s1, an F1 booking
// that executed, and its re-send that executed again (DUPLICATE_EXECUTION).
// It returns the trace's lines (the header first), without line breaks.
func doubleBooking(t *testing.T) []string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "fail.trace")
	start := time.Unix(1000, 0)
	w, err := Create(path, Header{Settings: Settings{Scenario: "F1", Mode: "deterministic", Kind: "proxy", KeyFields: []string{"idempotency_key"}}}, start)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	def := json.RawMessage(`{"name":"create_booking","inputSchema":{"type":"object"}}`)
	params := json.RawMessage(`{"name":"create_booking","arguments":{"room":"12","date":"2026-11-03"}}`)
	for _, ev := range []judge.Event{
		{Kind: judge.EventSession, Time: at(0), Session: "s1", Transport: "stdio"},
		{Kind: judge.EventTools, Time: at(1), Tools: []string{"create_booking"},
			Listing: []classify.Entry{{Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{}, Definition: def}}},
		{Kind: judge.EventCall, Time: at(2), Call: 1, Session: "s1", Tool: "create_booking", Class: classify.Write, Params: params},     // line 4
		{Kind: judge.EventForwarded, Time: at(3), Call: 1},                                                                              // line 5
		{Kind: judge.EventAnswer, Time: at(4), Call: 1, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout", ResponseDigest: "a"}, // line 6
		{Kind: judge.EventDelivered, Time: at(5), Call: 1},                                                                              // line 7
		{Kind: judge.EventCall, Time: at(6), Call: 2, Session: "s1", Tool: "create_booking", Class: classify.Write, Params: params},     // line 8
		{Kind: judge.EventForwarded, Time: at(7), Call: 2},                                                                              // line 9
		{Kind: judge.EventAnswer, Time: at(8), Call: 2, Outcome: judge.Executed, ResponseDigest: "b"},                                   // line 10
		{Kind: judge.EventEnd, Time: at(9)},                                                                                             // line 11
	} {
		if err := w.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

func joinLines(lines []string) []byte { return []byte(strings.Join(lines, "\n") + "\n") }

// edited returns lines with line n (1-based) replaced by its edit.
func edited(lines []string, n int, edit func(string) string) []string {
	out := append([]string(nil), lines...)
	out[n-1] = edit(out[n-1])
	return out
}

// pick returns the lines numbered ns (1-based), in that order, in a new slice.
func pick(lines []string, ns ...int) []string {
	out := make([]string, 0, len(ns))
	for _, n := range ns {
		out = append(out, lines[n-1])
	}
	return out
}

func replaced(old, new string) func(string) string {
	return func(l string) string { return strings.Replace(l, old, new, 1) }
}

// TestReadRefusesForgedTraces (issue 17 item 4): every edit below made
// `judge` turn the FAIL trace into a PASS, or accepted a line the writer
// cannot have written. Each is now refused, naming the line and the rule.
func TestReadRefusesForgedTraces(t *testing.T) {
	lines := doubleBooking(t)
	if len(lines) != 11 {
		t.Fatalf("%d lines", len(lines))
	}
	tr, err := Read(bytes.NewReader(joinLines(lines)))
	if err != nil {
		t.Fatal(err)
	}
	if j, _ := rejudge(tr, Options{Settings: tr.Header.Settings}); func() bool { v, _ := j.Verdict(); return v != report.VerdictFail }() {
		t.Fatalf("the unedited trace is not a FAIL")
	}
	session := `{"type":"session","t":0.5,"session":"s2","transport":"http"}`
	for _, tc := range []struct {
		name  string
		trace []string
		want  string // the error's line and rule
	}{
		{"call number reused", edited(lines, 8, replaced(`"call":2`, `"call":1`)), "line 8: call 1 already had its call line (rule: each call number once)"},
		{"class outside the schema", edited(lines, 8, replaced(`"class":"write"`, `"class":"sneaky"`)), "line 8: $.class: sneaky not in enum"},
		{"outcome outside the schema", edited(lines, 10, replaced(`"outcome":"executed"`, `"outcome":"executed-twice"`)), "line 10: $.outcome: executed-twice not in enum"},
		{"unknown field", edited(lines, 10, replaced(`"outcome"`, `"ignored":true,"outcome"`)), "line 10: $.ignored: schema false"},
		{"answer for a call that never existed", edited(lines, 10, replaced(`"call":2`, `"call":99`)), "line 10: answer line for call 99, which has no call line before it (rule: forwarded, answer and delivered only after their call)"},
		{"answer before its call", pick(lines, 1, 2, 3, 6, 4, 5, 7, 8, 9, 10, 11), "line 4: answer line for call 1, which has no call line before it"},
		{"second answer", edited(pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 11), 11, replaced(`"outcome":"executed"`, `"outcome":"unknown"`)), "line 11: a second answer line for call 2 (rule: forwarded, answer and delivered at most once per call)"},
		{"second forwarded", pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9, 10, 11), "line 10: a second forwarded line for call 2"},
		{"forwarded after the answer", pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 10, 9, 11), "line 10: call 2 forwarded after its answer (rule: a call is forwarded before its answer, delivered after it)"},
		{"delivered before the answer", pick(lines, 1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11), "line 6: call 1 delivered before its answer"},
		{"a call after end", pick(lines, 1, 2, 3, 4, 5, 6, 7, 11, 8, 9, 10), `line 9: a line of type "call" after the end line (rule: nothing after end but plugin failures)`},
		{"second end", pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 11), `line 12: a line of type "end" after the end line`},
		{"session never opened", edited(lines, 8, replaced(`"session":"s1"`, `"session":"s7"`)), `line 8: session "s7" was never opened (rule: a session opened before it is used, and once)`},
		{"session opened twice", pick(lines, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), `line 3: session "s1" opened a second time`},
		{"session opened after its use", pick(lines, 1, 3, 4, 2, 5, 6, 7, 8, 9, 10, 11), `line 4: session "s1" was used at line 3 before any session was opened`},
		{"transport outside the schema", edited(pick(lines, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), 3, func(string) string { return strings.Replace(session, "http", "carrier-pigeon", 1) }), "line 3: $.transport: carrier-pigeon not in enum"},
		// behaviour §4.12: an incomplete answer (input_required, never
		// followed up) does not execute; taking an execution for one would
		// turn the FAIL into a PASS.
		{"executed taken for incomplete", edited(lines, 10, replaced(`"outcome":"executed"`, `"outcome":"incomplete","result":{"content":[]}`)), "line 10: call 2's answer is incomplete, its result's resultType is absent, not input_required (rule: an incomplete answer is for a forwarded call"},
		{"incomplete without forwarding", edited(pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11), 9, replaced(`"outcome":"executed"`, `"outcome":"incomplete"`)), "line 9: call 2's outcome is incomplete, but it was not forwarded or its answer carries a fault"},
		{"incomplete with a fault", edited(lines, 6, replaced(`"outcome":"executed"`, `"outcome":"incomplete"`)), "line 6: call 1's outcome is incomplete, but it was not forwarded or its answer carries a fault"},
		{"negative time", edited(lines, 9, replaced(`"t":7`, `"t":-7`)), "line 9:"},
		{"header breaks its schema", edited(lines, 1, replaced(`"mode":"deterministic"`, `"mode":"lenient"`)), "line 1: $.settings.mode: lenient not in enum"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(joinLines(tc.trace)))
			if err == nil {
				t.Fatalf("read without error; want %q", tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "line ") && !strings.Contains(err.Error(), "(rule: ") && !strings.Contains(tc.want, "line 9:") {
				t.Errorf("error %q names no rule", err)
			}
		})
	}
}

// TestReadAcceptsWhatTheWriterWrites: lines the writer does write in this
// order are read — a plugin failure after the end line (a plugin the final
// judging asked), a dropped call (a tools/call without an id), and an
// older writer's numbered sessions without session lines.
func TestReadAcceptsWhatTheWriterWrites(t *testing.T) {
	lines := doubleBooking(t)
	plugin := `{"type":"plugin-failure","t":10,"plugin":"dates","detail":"trap"}`
	dropped := string(mustJSON(LineOf(judge.Event{Kind: judge.EventDroppedCall, Tool: "create_booking"}, 5500*time.Microsecond)))
	if dropped != `{"type":"dropped-call","t":5.5,"tool":"create_booking"}` {
		t.Fatalf("the writer's dropped-call line is %s", dropped)
	}
	for name, tc := range map[string][]string{
		"plugin failure after end": append(pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11), plugin),
		"dropped call":             append(append(pick(lines, 1, 2, 3, 4, 5, 6, 7), dropped), pick(lines, 8, 9, 10, 11)...),
		// The relay installs a list before its tools line is written: a
		// call classified with it may precede the line (red team 2's
		// cross-line checks must accept it).
		"call before the listing it was classified with": pick(lines, 1, 2, 4, 3, 5, 6, 7, 8, 9, 10, 11),
		// params without a non-empty string name: no "tool" (finding 8).
		"call without a tool name": append(append(pick(lines, 1, 2, 3, 4, 5, 6, 7),
			`{"type":"call","t":5.5,"session":"s1","call":3,"class":"unknown","params":{"name":5}}`,
			`{"type":"answer","t":5.6,"call":3,"outcome":"unknown-tool"}`), pick(lines, 8, 9, 10, 11)...),
		// behaviour §4.12: a first leg asked for input and never followed
		// up, answered at the session end.
		"an incomplete first leg": append(pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
			strings.Replace(lines[7], `"call":2`, `"call":3`, 1), strings.Replace(lines[8], `"call":2`, `"call":3`, 1),
			`{"type":"answer","t":9,"call":3,"outcome":"incomplete","result":{"resultType":"input_required","requestState":"st-1"}}`, lines[10]),
		"numbered sessions, no session line": func() []string {
			out := pick(lines, 1, 3, 4, 5, 6, 7, 8, 9, 10, 11)
			for i := range out {
				out[i] = strings.Replace(out[i], `"session":"s1"`, `"session":1`, 1)
			}
			return out
		}(),
	} {
		t.Run(name, func(t *testing.T) {
			tr, err := Read(bytes.NewReader(joinLines(tc)))
			if err != nil {
				t.Fatal(err)
			}
			j, meta := rejudge(tr, Options{Settings: tr.Header.Settings})
			if v, reason := j.Verdict(); v == report.VerdictPass {
				t.Errorf("verdict PASS (%s)", reason)
			}
			if meta.Status != "finished" || !tr.Ended {
				t.Errorf("status %q, ended %v", meta.Status, tr.Ended)
			}
		})
	}
}

// TestRejudgeInterrupted: a trace without its end line (a killed proxy) is
// judged, and its report's status is "interrupted", valid against the
// report schema.
func TestRejudgeInterrupted(t *testing.T) {
	lines := doubleBooking(t)
	tr, err := Read(bytes.NewReader(joinLines(pick(lines, 1, 2, 3, 4, 5, 6, 7)))) // one booking, answered: a PASS so far
	if err != nil {
		t.Fatal(err)
	}
	j, meta := rejudge(tr, Options{Settings: tr.Header.Settings})
	if v, reason := j.Verdict(); v != report.VerdictPass || meta.Status != report.StatusInterrupted || tr.Ended {
		t.Errorf("verdict %s (%s), status %q, ended %v; want PASS so far, interrupted", v, reason, meta.Status, tr.Ended)
	}
	if !bytes.Contains(j.AppendFile(nil, meta), []byte(`"status":"interrupted"`)) {
		t.Errorf("report file: %s", j.AppendFile(nil, meta))
	}
}

// TestReadRefusesForgedOutcomes (red team 3, findings 2 and 3): an
// answer's outcome that its result or its call contradicts turned the
// FAIL trace into a PASS; each is refused, naming the line and the rule,
// and the lines the writer does write are read.
func TestReadRefusesForgedOutcomes(t *testing.T) {
	lines := doubleBooking(t)
	http := edited(lines, 1, replaced(`"upstream":""`, `"upstream":"http"`))
	// What the trace holds of httpupstream's own answer to an HTTP 429
	// (its not-executed mark removed by the pipeline), before and from
	// revision 2026-07-28 on.
	const own = `{"content":[{"type":"text","text":"agent-harness: the upstream answered HTTP 429 Too Many Requests; the request did not reach a tool"}],"isError":true`
	notExec := func(result string) func(string) string {
		return replaced(`"outcome":"executed","responseDigest":"b"`, `"outcome":"upstream-not-executed","result":`+result)
	}
	for _, tc := range []struct {
		name  string
		trace []string
		want  string
	}{
		{"incomplete without its result", edited(lines, 10, replaced(`"outcome":"executed","responseDigest":"b"`, `"outcome":"incomplete"`)),
			"line 10: call 2's answer is incomplete without the result that asked for input (rule: an incomplete answer is for a forwarded call, carries no fault, and has the result that asked for input)"},
		{"unknown-tool on a write call", edited(lines, 10, replaced(`"outcome":"executed"`, `"outcome":"unknown-tool"`)),
			"line 10: call 2's outcome is unknown-tool, its call is of class write (rule: an unknown-tool answer is for a call of class unknown"},
		{"upstream-not-executed without a result", edited(http, 10, replaced(`"outcome":"executed"`, `"outcome":"upstream-not-executed"`)),
			"line 10: call 2's outcome is upstream-not-executed, its result is not the proxy's answer for an HTTP status (rule: an upstream-not-executed answer has the proxy's own isError result for an HTTP status)"},
		{"upstream-not-executed with the upstream's result", edited(http, 10, notExec(`{"content":[{"type":"text","text":"booked"}]}`)), "line 10: call 2's outcome is upstream-not-executed, its result is not"},
		{"upstream-not-executed with the upstream's own isError", edited(http, 10, notExec(`{"content":[{"type":"text","text":"agent-harness: the upstream answered HTTP 429"}],"isError":true,"extra":1}`)), "line 10: call 2's outcome is upstream-not-executed, its result is not"},
		{"upstream-not-executed with two texts", edited(http, 10, notExec(`{"content":[{"type":"text","text":"agent-harness: x"},{"type":"text","text":"y"}],"isError":true}`)), "line 10: call 2's outcome is upstream-not-executed, its result is not"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(joinLines(tc.trace)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	relisted := `{"type":"tools","t":7.5,"writes":[],"tools":[]}`
	for name, tc := range map[string][]string{
		"upstream-not-executed":                 edited(http, 10, notExec(own+`}`)),
		"upstream-not-executed, resultType":     edited(http, 10, notExec(own+`,"resultType":"complete"}`)),
		"unknown-tool after a listing lacks it": append(pick(lines, 1, 2, 3, 4, 5, 6, 7, 8, 9), relisted, strings.Replace(lines[9], `"outcome":"executed","responseDigest":"b"`, `"outcome":"unknown-tool"`, 1), lines[10]),
	} {
		t.Run("accepted "+name, func(t *testing.T) {
			if _, err := Read(bytes.NewReader(joinLines(tc))); err != nil {
				t.Error(err)
			}
		})
	}
}

// TestReadHandoffOrder (issue 21 item 1, behaviour §4.13): a delivered line
// with a fault — the fault handed to the agent while the call's outcome was
// not known, F1 on a task-creating write — comes after the call's
// forwarded line and before its answer; elsewhere it is refused.
func TestReadHandoffOrder(t *testing.T) {
	lines := doubleBooking(t)
	handoff := func(at string) func(string) string {
		return func(l string) string {
			return strings.Replace(strings.Replace(l, `"t":5`, `"t":`+at, 1), `"call":1}`, `"call":1,"fault":"timeout"}`, 1)
		}
	}
	ok := edited(pick(lines, 1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11), 6, handoff("3.5"))
	if _, err := Read(bytes.NewReader(joinLines(ok))); err != nil {
		t.Fatalf("a handoff between forwarded and answer is refused: %v", err)
	}
	for _, tc := range []struct {
		name  string
		trace []string
		want  string
	}{
		{"after the answer", edited(lines, 7, handoff("5")), "line 7: call 1 delivered with a fault after its answer (rule: a delivered line with a fault comes after its call's forwarded line and before its answer)"},
		{"before the forwarding", edited(pick(lines, 1, 2, 3, 4, 7, 5, 6, 8, 9, 10, 11), 5, handoff("2.5")), "line 5: call 1 delivered with a fault before it was forwarded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(joinLines(tc.trace)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

// TestReadRefusesHandoffAnswerMismatch (issue 21 item 1, red team): the
// pipeline settles a handed-over task with its final status — a ghost
// write carries the very fault the agent was handed, without a retry_after
// (only a forward-and-replace fault is handed over, and none has one), and
// anything else carries no fault. An edited answer that executed with no
// fault, another fault, or a 429's retry_after measured from the answer
// instead of the handoff (an early re-send then looks on time: a wrong
// PASS) is refused, naming the line and the rule.
func TestReadRefusesHandoffAnswerMismatch(t *testing.T) {
	lines := doubleBooking(t)
	handoff := func(kind string) func(string) string {
		return func(l string) string {
			return strings.Replace(strings.Replace(l, `"t":5`, `"t":3.5`, 1), `"call":1}`, `"call":1,"fault":"`+kind+`"}`, 1)
		}
	}
	// Lines in the handoff's order: call, forwarded, handoff (line 6), answer (line 7).
	order := func(kind string, answer func(string) string) []string {
		return edited(edited(pick(lines, 1, 2, 3, 4, 5, 7, 6, 8, 9, 10, 11), 6, handoff(kind)), 7, answer)
	}
	same := func(l string) string { return l }
	for _, ok := range []struct {
		name  string
		trace []string
	}{
		{"the ghost write with the fault handed over", order("timeout", same)},
		{"a failed task without a fault", order("timeout", replaced(`"outcome":"executed","scenario":"F1","fault":"timeout","responseDigest":"a"`, `"outcome":"upstream-rejected"`))},
	} {
		if _, err := Read(bytes.NewReader(joinLines(ok.trace))); err != nil {
			t.Errorf("%s: refused: %v", ok.name, err)
		}
	}
	const rule = "(rule: the answer after a handoff is executed with the fault handed over and no retry_after, or not executed without a fault)"
	for _, tc := range []struct {
		name  string
		trace []string
		want  string
	}{
		{"executed without a fault", order("timeout", replaced(`"scenario":"F1","fault":"timeout",`, ``)),
			`line 7: call 1 was handed fault "timeout", its executed answer carries fault "" and retryAfterMs 0 ` + rule},
		{"executed with another fault", order("timeout", replaced(`"fault":"timeout"`, `"fault":"truncated_json"`)),
			`line 7: call 1 was handed fault "timeout", its executed answer carries fault "truncated_json" and retryAfterMs 0 ` + rule},
		{"a 429 timed from the answer", order("rate_limit", replaced(`"fault":"timeout"`, `"fault":"rate_limit","retryAfterMs":1000`)),
			`line 7: call 1 was handed fault "rate_limit", its executed answer carries fault "rate_limit" and retryAfterMs 1000 ` + rule},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Read(bytes.NewReader(joinLines(tc.trace)))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
