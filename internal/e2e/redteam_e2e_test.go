package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red-team findings of the wave that landed state probes, multi-round-trip
// calls, tasks, cancellation and the trace checker's new rules. Each test
// FAILS on the code it was written against and says what a user would
// wrongly see; none of them fixes anything.

// redForge rewrites the recorded trace src line by line with edit (which
// gets each line decoded and may change it in place) and writes it to a file
// in a temporary directory.
func redForge(t *testing.T, src string, edit func(line map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, raw := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		edit(l)
		enc, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(enc)
		out.WriteByte('\n')
	}
	dst := filepath.Join(t.TempDir(), "forged.trace.jsonl")
	if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestRedTraceIncompleteWithoutResult: the trace checker checks an
// `incomplete` answer's result for resultType input_required only when the
// line has a result. Take the recorded F1 trace of the naive agent (a
// DUPLICATE_EXECUTION, `judge` exits 1), change the second, executed
// create_booking answer's outcome to "incomplete" and delete its result and
// responseDigest: `judge` accepts the trace and says PASS, exit 0 — an
// edited trace re-judged FAIL→PASS. It should refuse the line (exit 2): the
// writer records the upstream's input_required result on every incomplete
// answer of a forwarded call, so one without a result is not its line.
func TestRedTraceIncompleteWithoutResult(t *testing.T) {
	t.Parallel()
	src := filepath.Join(repoRoot(t), "cmd", "agent-harness", "testdata", "recorded", "f1-naive.trace.jsonl")
	if _, _, code := runBuilt(t, t.TempDir(), nil, "judge", src); code != 1 {
		t.Fatalf("the recorded trace exits %d, want 1 (FAIL)", code)
	}
	forged := redForge(t, src, func(l map[string]any) {
		if l["type"] == "answer" && l["call"] == 2.0 {
			l["outcome"] = "incomplete"
			delete(l, "result")
			delete(l, "responseDigest")
		}
	})
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "judge", forged)
	if code != 2 {
		t.Errorf("judge of the forged trace exits %d, want 2 (refused); stdout:\n%s\nstderr:\n%s", code, firstLines(stdout, 3), stderr)
	}
}

// firstLines is s's first n lines.
func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

// redUpstreamEnv names the mode in which the test binary itself runs as a
// hostile MCP upstream (redUpstream) instead of running tests; the
// proxy's environment, which its upstream inherits, sets it.
const redUpstreamEnv = "AGENT_HARNESS_RED_UPSTREAM"

func init() {
	if mode := os.Getenv(redUpstreamEnv); mode != "" {
		redUpstream(mode, os.Getenv("AGENT_HARNESS_RED_TRUTH"))
		os.Exit(0)
	}
}

// redUpstream is a line-delimited stdio MCP server listing create_booking.
// Every tools/call executes: it appends a line to truth (the ground truth)
// before answering. Mode "input-required-after-exec": the first call is
// answered resultType input_required (after it executed), every later one
// with a normal result.
func redUpstream(mode, truth string) {
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	calls := 0
	send := func(id json.RawMessage, result string) {
		fmt.Fprintf(os.Stdout, `{"jsonrpc":"2.0","id":%s,"result":%s}`+"\n", id, result)
	}
	for sc.Scan() {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
		}
		if json.Unmarshal(sc.Bytes(), &m) != nil || len(m.ID) == 0 {
			continue
		}
		switch m.Method {
		case "initialize":
			var p struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(m.Params, &p)
			send(m.ID, fmt.Sprintf(`{"protocolVersion":%q,"capabilities":{"tools":{}},"serverInfo":{"name":"red-upstream","version":"1"}}`, p.ProtocolVersion))
		case "tools/list":
			send(m.ID, `{"tools":[{"name":"create_booking","description":"Book a room.","inputSchema":{"type":"object","properties":{"guest":{"type":"string"}}}}]}`)
		case "tools/call":
			calls++
			f, err := os.OpenFile(truth, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
			if err == nil {
				fmt.Fprintln(f, "executed")
				f.Close()
			}
			if mode == "input-required-after-exec" && calls == 1 {
				send(m.ID, `{"resultType":"input_required","inputRequests":{"confirm":{"method":"elicitation/create","params":{"message":"Sure?","requestedSchema":{"type":"object","properties":{}}}}},"requestState":"rs-1"}`)
				continue
			}
			send(m.ID, `{"content":[{"type":"text","text":"booked"}]}`)
		default:
			send(m.ID, `{}`)
		}
	}
}

// redTruth counts the executions redUpstream recorded in truth.
func redTruth(t *testing.T, truth string) int {
	t.Helper()
	b, err := os.ReadFile(truth)
	if os.IsNotExist(err) {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	return strings.Count(string(b), "executed\n")
}

// redReport is the part of a report file these tests read.
type redReport struct {
	Verdict string `json:"verdict"`
	Report  struct {
		VerdictReason string `json:"verdictReason"`
		Operations    []struct {
			Outcome    string `json:"outcome"`
			Executions int    `json:"executions"`
		} `json:"operations"`
	} `json:"report"`
}

func readRedReport(t *testing.T, path string) redReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r redReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

// runInputRequiredResent runs the set-up of red-team finding 1 (behaviour
// §4.12): the proxy under F1 in front of redUpstream in mode
// input-required-after-exec, an agent that sends create_booking, reads the
// input_required answer, and sends the call again from scratch (F1 fires on
// it, it executes). It checks the set-up — the two answers, exit 0, two
// executions in the ground truth — and returns the report file.
func runInputRequiredResent(t *testing.T) redReport {
	t.Helper()
	dir := t.TempDir()
	truth, reportFile := filepath.Join(dir, "truth.log"), filepath.Join(dir, "report.json")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, []string{redUpstreamEnv + "=input-required-after-exec", "AGENT_HARNESS_RED_TRUTH=" + truth},
		"--scenario", "F1", "--upstream-command", self, "--audit-tools", "off", "--report-file", reportFile)
	p.send(rpcRequest(`1`, "initialize", `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"red","version":"1"}}`))
	p.until(`1`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"name":"create_booking","arguments":{"guest":"Ada"}}`
	if r := p.request(`2`, "tools/call", call); !strings.Contains(string(r), `"input_required"`) {
		t.Fatalf("first call's answer %s, want input_required", r)
	}
	if r := p.request(`3`, "tools/call", call); !strings.Contains(string(r), `timed out`) {
		t.Fatalf("second call's answer %s, want F1's timeout", r)
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("proxy exit %d; stderr:\n%s", code, p.stderr.String())
	}
	if n := redTruth(t, truth); n != 2 {
		t.Fatalf("the upstream executed %d times, want 2 (the set-up)", n)
	}
	return readRedReport(t, reportFile)
}

// TestRedInputRequiredAfterExecution: behaviour §4.12 takes an
// input_required answer as proof that nothing ran ("a first leg never
// followed up did not execute: incomplete"), while an isError answer — the
// upstream's word too — is counted as possibly executed. An upstream that
// executes create_booking and then asks for input (a confirmation step
// wired after the side effect) and an agent that, instead of following up,
// sends the call again from scratch: F1 passes the input_required leg and
// fires on the second, which executes. The upstream executed twice; the
// report says PASS (one execution, attempts incomplete + executed), exit 0.
// It should not PASS: an input_required leg that was forwarded is at most
// uncertain when the same operation executes later (NOT_TESTED), or the
// judge should say it cannot tell.
func TestRedInputRequiredAfterExecution(t *testing.T) {
	t.Parallel()
	r := runInputRequiredResent(t)
	if r.Verdict == "PASS" {
		t.Errorf("the upstream executed create_booking twice, the report says PASS (%s); operations %+v", r.Report.VerdictReason, r.Report.Operations)
	}
}

// TestRedTraceStateLinesWithoutProbe: a trace records its probe in the
// header's stateCommand (behaviour §16.5), but the reader accepts `state`
// lines in a trace whose header has none. Add two lines to the recorded F1
// trace of the naive agent (a DUPLICATE_EXECUTION, exit 1) — a before
// snapshot {"bookings":0} after the listing and an after snapshot
// {"bookings":1} before the end — and re-judge it with
// `--state-map create_booking=bookings`: the duplicate becomes
// DEDUPLICATED_BY_BACKEND and `judge` says PASS, exit 0. A proxy without
// --state-command never writes a state line, so the trace should be refused
// (exit 2) as one its writer could not have produced.
func TestRedTraceStateLinesWithoutProbe(t *testing.T) {
	t.Parallel()
	src := filepath.Join(repoRoot(t), "cmd", "agent-harness", "testdata", "recorded", "f1-naive.trace.jsonl")
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `"stateCommand"`) {
		t.Fatal("the recorded trace has a stateCommand; this test needs one without")
	}
	var out []string
	for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var l struct {
			Type string  `json:"type"`
			T    float64 `json:"t"`
		}
		if err := json.Unmarshal([]byte(line), &l); err != nil {
			t.Fatal(err)
		}
		if l.Type == "end" {
			out = append(out, fmt.Sprintf(`{"type":"state","t":%v,"at":"after","counters":{"bookings":1}}`, l.T))
		}
		out = append(out, line)
		if l.Type == "tools" {
			out = append(out, fmt.Sprintf(`{"type":"state","t":%v,"at":"before","counters":{"bookings":0}}`, l.T))
		}
	}
	forged := filepath.Join(t.TempDir(), "forged.trace.jsonl")
	if err := os.WriteFile(forged, []byte(strings.Join(out, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "judge", forged, "--state-map", "create_booking=bookings")
	if code != 2 {
		t.Errorf("judge of the trace with state lines but no stateCommand exits %d, want 2 (refused); stdout:\n%s\nstderr:\n%s", code, firstLines(stdout, 3), stderr)
	}
}

// TestRedTraceForgedOutcome: the trace checker compares an answer's outcome
// with its result only for executed, upstream-rejected and incomplete, so
// other not-executed outcomes are taken as written. Each subtest edits the
// recorded F1 trace of the naive agent (DUPLICATE_EXECUTION, `judge` exits
// 1) so that the second, executed create_booking answer no longer counts;
// `judge` accepts the trace and says PASS, exit 0 — a user re-judging an
// edited trace sees a double booking turn green. Each should be refused
// (exit 2):
//   - unknown-tool: one word changed, the upstream's booking result kept.
//     The proxy gives this outcome only to a call of class unknown (a tool
//     the upstream did not list; pipeline.outcomeOf), and the call line says
//     class write.
//   - upstream-not-executed: the header's upstream transport set to http
//     and one word changed, result kept. The proxy gives it only to an
//     isError result carrying the HTTP status proof (notExecutedProof); this
//     result has neither.
func TestRedTraceForgedOutcome(t *testing.T) {
	t.Parallel()
	src := filepath.Join(repoRoot(t), "cmd", "agent-harness", "testdata", "recorded", "f1-naive.trace.jsonl")
	for _, tc := range []struct {
		outcome string
		header  func(l map[string]any)
	}{
		{"unknown-tool", nil},
		{"upstream-not-executed", func(l map[string]any) { l["transport"].(map[string]any)["upstream"] = "http" }},
	} {
		t.Run(tc.outcome, func(t *testing.T) {
			forged := redForge(t, src, func(l map[string]any) {
				if l["type"] == "header" && tc.header != nil {
					tc.header(l)
				}
				if l["type"] == "answer" && l["call"] == 2.0 {
					l["outcome"] = tc.outcome
				}
			})
			stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "judge", forged)
			if code != 2 {
				t.Errorf("judge of the trace whose executed answer says %s exits %d, want 2 (refused); stdout:\n%s\nstderr:\n%s", tc.outcome, code, firstLines(stdout, 3), stderr)
			}
		})
	}
}
