package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// answerOf reads the JSON-RPC answer to a POST: the body, or the last event
// of its SSE stream.
func answerOf(t *testing.T, resp *http.Response) []byte {
	t.Helper()
	defer resp.Body.Close()
	if !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		b, _ := io.ReadAll(resp.Body)
		return b
	}
	var last []byte
	_ = sse.ReadEvents(bufio.NewReader(resp.Body), func(id, typ string, data []byte) bool {
		last = append([]byte(nil), data...)
		return true
	})
	return last
}

// callText posts a tools/call and returns the answer's first text item
// and whether it is an isError result.
func callText(t *testing.T, s *rawSession, id int, tool, args string) (string, bool) {
	t.Helper()
	b := answerOf(t, s.post(rpcRequest(fmt.Sprint(id), "tools/call", fmt.Sprintf(`{"name":%q,"arguments":%s}`, tool, args))))
	var a struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
			IsError bool                    `json:"isError"`
		} `json:"result"`
	}
	if err := json.Unmarshal(b, &a); err != nil || len(a.Result.Content) == 0 {
		t.Fatalf("%s: unreadable answer %q (%v)", tool, b, err)
	}
	return a.Result.Content[0].Text, a.Result.IsError
}

// endSession ends a raw session with DELETE (the agent reconnects).
func (s *rawSession) endSession() {
	s.t.Helper()
	req, _ := http.NewRequest(http.MethodDelete, s.url, nil)
	req.Header.Set("Mcp-Session-Id", s.id)
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatal(err)
	}
	resp.Body.Close()
}

// carefulAgent is the agent of issue 17 item 11: it books with a key, gets
// F1's timeout, reconnects (a new session), looks for the booking, and
// re-sends with the same key only when it finds none. It reports whether
// it re-sent.
func carefulAgent(t *testing.T, url string) (resent bool) {
	t.Helper()
	const booking = `{"guest":"Ada Lovelace","date":"2027-01-02","room":"double","idempotency_key":"k-ada-1"}`
	s1 := newRawSession(t, url)
	s1.initialize()
	if text, isErr := callText(t, s1, 2, "create_booking", booking); !isErr || !strings.Contains(text, "timed out") {
		t.Fatalf("first create_booking: want F1's timeout, got isError=%v %q", isErr, text)
	}
	s1.endSession()
	s2 := newRawSession(t, url)
	s2.initialize()
	found, _ := callText(t, s2, 2, "find_bookings", `{"guest":"Ada Lovelace","date":"2027-01-02"}`)
	if strings.Contains(found, "k-ada-1") {
		return false
	}
	if text, isErr := callText(t, s2, 3, "create_booking", booking); isErr {
		t.Fatalf("re-sent create_booking: %q", text)
	}
	return true
}

// TestSharedUpstreamCarefulAgentPasses is issue 17 item 11: over --listen
// with a stdio upstream that keeps its bookings in its own memory (the
// sample server), a careful agent that reconnects after F1 finds the
// booking in the one shared backend and does not re-send: PASS with one
// execution. With one upstream process per session the read found nothing,
// the agent re-sent, and the run was FAIL.
func TestSharedUpstreamCarefulAgentPasses(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, _ := binaries(t)
	p := startHTTPProxy(t, "--scenario", "F1", "--audit-tools", "off", "--", proxy, "sample-server")
	if carefulAgent(t, p.url) {
		t.Errorf("the agent's read in its second session did not find the booking made in its first; it re-sent\nstderr:\n%s", p.stderr)
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	r := p.readReport()
	if r.Report.Verdict != "PASS" || r.executions()["create_booking"] != 1 {
		t.Errorf("verdict %s (%s), create_booking executions %d; want PASS with 1\nstderr:\n%s",
			r.Report.Verdict, r.Report.VerdictReason, r.executions()["create_booking"], p.stderr)
	}
}

// TestUpstreamPerSessionRepeatNotTested: with --upstream-per-session each
// session has its own sample server, the careful agent's read finds
// nothing in its second session and it re-sends: both processes executed
// the booking once. That is not a proven duplicate: NOT_TESTED with
// REPEAT_ACROSS_UPSTREAM_PROCESSES, in the live report and in the
// re-judged trace (exit 3).
func TestUpstreamPerSessionRepeatNotTested(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, _ := binaries(t)
	tracePath := t.TempDir() + "/trace.jsonl"
	p := startHTTPProxy(t, "--upstream-per-session", "--trace", tracePath, "--scenario", "F1", "--audit-tools", "off", "--", proxy, "sample-server")
	if !carefulAgent(t, p.url) {
		t.Fatalf("the agent found the booking of its first session's process in its second's\nstderr:\n%s", p.stderr)
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	r := p.readReport()
	if r.Report.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, "REPEAT_ACROSS_UPSTREAM_PROCESSES") ||
		!slices.Contains(r.observations(), "REPEAT_ACROSS_UPSTREAM_PROCESSES") || len(r.Report.Violations) != 0 {
		t.Errorf("verdict %s (%s), observations %v, violations %+v; want NOT_TESTED, REPEAT_ACROSS_UPSTREAM_PROCESSES, no violation",
			r.Report.Verdict, r.Report.VerdictReason, r.observations(), r.Report.Violations)
	}
	if r.executions()["create_booking"] != 2 {
		t.Errorf("create_booking executions %d, want 2", r.executions()["create_booking"])
	}
	cmd := exec.Command(proxy, "judge", tracePath)
	out, _ := cmd.Output()
	if code := cmd.ProcessState.ExitCode(); code != 3 || !bytes.Contains(out, []byte("REPEAT_ACROSS_UPSTREAM_PROCESSES")) {
		t.Errorf("judge TRACE: exit %d, want 3 with REPEAT_ACROSS_UPSTREAM_PROCESSES:\n%s", code, out)
	}
}

// TestSharedUpstreamSIGTERMGrace: a write still in flight in one of several
// sessions over the shared upstream when the proxy gets SIGTERM is answered
// within the shutdown grace (behaviour §13.2): the agent gets the answer
// and the final report judges it executed, once.
func TestSharedUpstreamSIGTERMGrace(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--audit-tools", "off")
	s1, s2 := newRawSession(t, p.url), newRawSession(t, p.url)
	s1.initialize()
	s2.initialize()
	done := make(chan string, 1)
	go func() {
		// Not s2.post: a failed POST must reach the test, not end this
		// goroutine.
		req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(rpcRequest("2", "tools/call", `{"name":"book_room","arguments":{"room":"r1","sleep_ms":600}}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", s2.id)
		resp, err := s2.hc.Do(req)
		if err != nil {
			done <- "POST failed: " + err.Error()
			return
		}
		done <- string(answerOf(t, resp))
	}()
	p.stderr.waitFor(t, "book_room sleeping 600 ms")
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	if got := <-done; !strings.Contains(got, "book_room done") {
		t.Errorf("the in-flight call's answer: %q, want the upstream's result", got)
	}
	r := p.readReport()
	if r.Status != "finished" || len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "EXECUTED" || r.Report.Operations[0].Executions != 1 {
		t.Errorf("status %s, operations %+v; want finished, one EXECUTED once\nstderr:\n%s", r.Status, r.Report.Operations, p.stderr)
	}
	if strings.Contains(p.stderr.String(), "exited unexpectedly") {
		t.Errorf("the shared upstream's stop was reported as a crash:\n%s", p.stderr)
	}
}

// TestSharedUpstreamExitBeforeSessionIsStartFailure: the shared process is
// started at launch, so one that exits before any session started is a
// start failure as on stdio: its stderr tail, exit 1, report "failed".
func TestSharedUpstreamExitBeforeSessionIsStartFailure(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--", "/bin/sh", "-c", "echo cannot open the database >&2; exit 3")
	if code := p.waitExit(); code != 1 {
		t.Errorf("exit code %d, want 1\nstderr:\n%s", code, p.stderr)
	}
	for _, want := range []string{"the upstream MCP server exited before the session started (exit status 3)", "| cannot open the database"} {
		if !strings.Contains(p.stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, p.stderr)
		}
	}
	if r := p.readReport(); r.Status != "failed" {
		t.Errorf("report status %q, want failed", r.Status)
	}
}

// TestSharedUpstreamCrashAfterStatelessCallsIsJudged: an agent that
// never sends initialize (a stateless SEP-2575 client whose requests carry
// their protocol version in _meta; the relay lists tools lazily for it)
// books the same room twice over the shared upstream — a double execution —
// and the process then crashes. The process was used (a tools/list and
// tools/calls reached it), so the exit is a crash, not an exit "before the
// session started" (behaviour §8.3): reported once, the run judged — FAIL,
// two executions — not exit 1 with report "failed".
func TestSharedUpstreamCrashAfterStatelessCallsIsJudged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--audit-tools", "off")
	s := newRawSession(t, p.url) // no initialize: the stateless session
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for i := 2; i <= 3; i++ {
		b := answerOf(t, s.post(rpcRequest(strconv.Itoa(i), "tools/call", `{"name":"create_booking","arguments":`+bookingArgs+`,`+meta+`}`)))
		if !strings.Contains(string(b), `"result"`) {
			t.Fatalf("create_booking %d: %s\nstderr:\n%s", i, b, p.stderr)
		}
	}
	resp := s.post(rpcRequest("4", "tools/call", `{"name":"crash","arguments":{"code":2},`+meta+`}`))
	resp.Body.Close()
	p.stderr.waitFor(t, "MCP server exited") // the crash line, or a start failure's
	code := p.stop(syscall.SIGTERM)          // a proxy that exited already is not signalled
	r := p.readReport()
	if strings.Contains(p.stderr.String(), "exited before the session started") || r.Status == "failed" || r.Report.Verdict != "FAIL" {
		t.Errorf("after two executions and a crash: exit %d, status %q, verdict %q (%s); want the run judged FAIL (two create_booking executions), not a start failure\nstderr:\n%s",
			code, r.Status, r.Report.Verdict, r.Report.VerdictReason, p.stderr)
	}
	if n := strings.Count(p.stderr.String(), "the shared upstream MCP server exited unexpectedly"); n != 1 {
		t.Errorf("the crash was reported %d times, want once\nstderr:\n%s", n, p.stderr)
	}
}

// TestSharedUpstreamLateAnswerOfEndedSessionIsJudged: over the shared
// upstream s1's book_room (4 s) is in flight when s1 ends (DELETE); its
// relay waits its 2 s grace and detaches, and the shared process — which a
// session's end does not stop — completes the booking and answers. That
// answer, proof of the first execution, still reaches s1's pipeline (one
// stderr line says so; no agent gets it). The agent reconnects as s2 and
// books the same room again: the one backend executed it twice, and the
// report says so — FAIL with 2 executions, not NOT_TESTED with one
// execution and an unknown attempt (behaviour §8.3).
func TestSharedUpstreamLateAnswerOfEndedSessionIsJudged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--audit-tools", "off")
	s1 := newRawSession(t, p.url)
	s1.initialize()
	go func() {
		req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(rpcRequest("2", "tools/call", `{"name":"book_room","arguments":{"room":"r7","sleep_ms":4000}}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", s1.id)
		if resp, err := s1.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	p.stderr.waitFor(t, "book_room sleeping")
	s1.endSession()
	// The booking completes in the shared process and its answer is judged
	// (normally after s1's grace: "answered a tools/call of session s1
	// after the session ended"). Nothing waits for that line: on a slow
	// machine the answer may still land within the grace, and either way
	// the report must count both executions. s1's booking started first,
	// so it has finished once s2's identical one has.
	s2 := newRawSession(t, p.url)
	s2.initialize()
	if text, isErr := callText(t, s2, 2, "book_room", `{"room":"r7","sleep_ms":4000}`); isErr {
		t.Fatalf("s2's book_room: %q", text)
	}
	p.stop(syscall.SIGTERM)
	up := p.upstreamExecutions()["book_room"]
	r := p.readReport()
	if up != 2 {
		t.Fatalf("the shared upstream executed book_room %d times, want 2\nstderr:\n%s", up, p.stderr)
	}
	if r.Report.Verdict != "FAIL" || r.executions()["book_room"] != 2 {
		t.Errorf("the shared upstream executed book_room %d times; report: verdict %s (%s), %d executions; want FAIL with 2\nstderr:\n%s",
			up, r.Report.Verdict, r.Report.VerdictReason, r.executions()["book_room"], p.stderr)
	}
}

// TestSharedUpstreamLegacyInitializeAfterStatelessSession is issue 21 item
// 2: over --listen with one shared stdio upstream (the sample server, a
// go-sdk server), a 2026-07-28 stateless client books first, without
// initialize; a legacy client's initialize then reached the process, which
// took its one MCP session as set up already and answered `duplicate
// "initialize" received`. Two legacy clients (go-sdk, LangChain.js) never
// show it: the second is answered from the first's result. The second
// client now hears why in plain words, and the report still counts the one
// execution that reached the upstream.
func TestSharedUpstreamLegacyInitializeAfterStatelessSession(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, _ := binaries(t)
	p := startHTTPProxy(t, "--audit-tools", "off", "--", proxy, "sample-server")
	const meta = `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"stateless","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	stateless := newRawSession(t, p.url)
	stateless.extra = []string{"MCP-Protocol-Version", "2026-07-28"}
	call := answerOf(t, stateless.post(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"Ada Lovelace","date":"2027-01-02","room":"double"},`+meta+`}}`))
	if !bytes.Contains(call, []byte(`booking_id`)) {
		t.Fatalf("stateless create_booking: %s\nstderr:\n%s", call, p.stderr)
	}

	legacy := newRawSession(t, p.url)
	b := answerOf(t, legacy.post(rpcRequest("1", "initialize", initializeParams)))
	var ans struct {
		Result json.RawMessage `json:"result"`
		Error  *struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &ans); err != nil || ans.Error == nil {
		t.Fatalf("legacy initialize after a stateless session: want an error, got %s (%v)", b, err)
	}
	for _, want := range []string{
		"agent-harness: session s2's initialize was refused by the shared upstream process",
		"a 2026-07-28 (stateless, SEP-2575) session already uses without initialize",
		"--upstream-per-session",
		`The upstream said: duplicate "initialize" received`,
	} {
		if !strings.Contains(ans.Error.Message, want) {
			t.Errorf("the error the legacy client gets lacks %q:\n%s", want, ans.Error.Message)
		}
	}
	if ans.Error.Code != -32603 {
		t.Errorf("error code %d, want -32603 (the upstream's 0 is no JSON-RPC code)", ans.Error.Code)
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	r := p.readReport()
	if n := r.executions()["create_booking"]; n != 1 {
		t.Errorf("create_booking executions %d, want 1 (what reached the upstream)\nstderr:\n%s", n, p.stderr)
	}
}

// TestSharedUpstreamGoSDKLegacyClientAfterStatelessClient is issue 21 item
// 2 with two go-sdk clients: the first speaks 2026-07-28 (the SDK's
// default: server/discover, no initialize), the second asks for
// 2025-11-25 and so sends initialize, which the shared sample server
// refuses. Its Connect fails with the proxy's plain-words error; two
// clients of one revision each connect (the second legacy one is answered
// from the first's initialize), and the report counts what reached the
// upstream.
func TestSharedUpstreamGoSDKLegacyClientAfterStatelessClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, _ := binaries(t)
	ctx, cancel := context.WithTimeout(t.Context(), sessionWait)
	defer cancel()
	connect := func(url, version string) (*mcp.ClientSession, error) {
		client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-agent-" + version, Version: "1"}, nil)
		var opts *mcp.ClientSessionOptions
		if version != "" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
		}
		return client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, MaxRetries: -1}, opts)
	}
	book := func(cs *mcp.ClientSession) {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: map[string]any{"guest": "Ada Lovelace", "date": "2027-01-02", "room": "double"}})
		if err != nil || res.IsError {
			t.Fatalf("create_booking: %+v %v", res, err)
		}
	}
	for _, tc := range []struct {
		name           string
		first, second  string // protocol versions ("" the SDK's default, 2026-07-28)
		wantErr        string
		wantExecutions int
	}{
		{"stateless, then legacy", "", "2025-11-25", "a 2026-07-28 (stateless, SEP-2575) session already uses without initialize", 1},
		{"legacy, then legacy", "2025-11-25", "2025-11-25", "", 2},
		{"stateless, then stateless", "", "", "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startHTTPProxy(t, "--audit-tools", "off", "--", proxy, "sample-server")
			a, err := connect(p.url, tc.first)
			if err != nil {
				t.Fatalf("first client: %v\nstderr:\n%s", err, p.stderr)
			}
			book(a)
			b, err := connect(p.url, tc.second)
			switch {
			case tc.wantErr == "" && err != nil:
				t.Fatalf("second client: %v\nstderr:\n%s", err, p.stderr)
			case tc.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.Contains(err.Error(), "--upstream-per-session")):
				t.Fatalf("second client's connect error %v, want one naming %q and --upstream-per-session", err, tc.wantErr)
			case err == nil:
				book(b)
				_ = b.Close()
			}
			_ = a.Close()
			p.stop(syscall.SIGTERM)
			if n := p.readReport().executions()["create_booking"]; n != tc.wantExecutions {
				t.Errorf("create_booking executions %d, want %d\nstderr:\n%s", n, tc.wantExecutions, p.stderr)
			}
		})
	}
}

// TestSharedUpstreamNPMLangChainAfterAISDK2026 is issue 21 item 2's hand
// test: over one --listen proxy with the shared sample server, the AI SDK
// in a 2026-07-28 session (server/discover, no initialize) books, then a
// LangChain.js agent (the MCP SDK v1 client: initialize with 2025-11-25)
// connects. Its connect fails — the process's one MCP session is the
// stateless one — and the error its user reads says so and names
// --upstream-per-session, with which both agents book; the report counts
// what reached the upstream (the state files).
func TestSharedUpstreamNPMLangChainAfterAISDK2026(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	aisdk, langchain := npmFile(t, "aisdk-agent.mjs"), npmFile(t, "langchain-agent.mjs")
	bin := built(t, "agent-harness")
	for _, tc := range []struct {
		name    string
		flags   []string
		wantErr string // in LangChain's error; "" = it books
		booked  int
	}{
		{"shared", nil, "a 2026-07-28 (stateless, SEP-2575) session already uses without initialize", 1},
		{"--upstream-per-session", []string{"--upstream-per-session"}, "", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			upstream := []string{"sh", "-c", `exec "$0" sample-server --state-file "$1/state.$$.jsonl"`, bin, dir}
			p := startHTTPProxy(t, append(append(append([]string{"--audit-tools", "off"}, tc.flags...), "--"), upstream...)...)
			run := func(script string, cfg string) (errText string) {
				t.Helper()
				out, stderr, code := runNode(t, filepath.Dir(script), nil, script, cfg)
				var got struct {
					ModelSaw *fwSaw `json:"modelSaw"`
					Error    string `json:"error"`
				}
				if code != 0 || json.Unmarshal(out, &got) != nil {
					t.Fatalf("%s exit %d printed %q; stderr:\n%s", script, code, out, stderr)
				}
				return got.Error
			}
			if e := run(aisdk, `{"transport":"http","url":"`+p.url+`","discover":true}`); e != "" {
				t.Fatalf("the AI SDK's 2026 session: %s\nstderr:\n%s", e, p.stderr)
			}
			e := run(langchain, `{"transport":"http","url":"`+p.url+`"}`)
			switch {
			case tc.wantErr == "" && e != "":
				t.Errorf("LangChain.js: %s\nstderr:\n%s", e, p.stderr)
			case tc.wantErr != "" && (!strings.Contains(e, tc.wantErr) || !strings.Contains(e, "--upstream-per-session")):
				t.Errorf("LangChain.js's error %q, want it to say %q and name --upstream-per-session", e, tc.wantErr)
			}
			p.stop(syscall.SIGTERM)
			r := p.readReport()
			if n, truth := r.executions()["create_booking"], fwGroundTruth(t, dir); n != tc.booked || truth != tc.booked {
				t.Errorf("report %d execution(s), the upstream's state files %d; want %d\nstderr:\n%s", n, truth, tc.booked, p.stderr)
			}
		})
	}
}
