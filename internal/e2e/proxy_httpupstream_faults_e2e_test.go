package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// fakeMCP is a minimal MCP Streamable HTTP server on loopback (JSON
// answers, no session id) whose tools/call answers a test chooses: onCall
// gets the call's number (1, 2, …) and its JSON-RPC id and returns false
// to answer normally (an execution). executed counts executions.
type fakeMCP struct {
	srv      *httptest.Server
	executed atomic.Int32
	calls    atomic.Int32
	onCall   func(n int, id string, w http.ResponseWriter, r *http.Request) bool
	onGet    func(w http.ResponseWriter, r *http.Request)
}

func newFakeMCP(t *testing.T) *fakeMCP {
	f := &fakeMCP{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeMCP) url() string { return f.srv.URL + "/mcp" }

// execute counts an execution and writes its answer.
func (f *fakeMCP) execute(w http.ResponseWriter, id string) {
	f.executed.Add(1)
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
}

func (f *fakeMCP) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method == http.MethodGet {
		if f.onGet != nil {
			f.onGet(w, r)
			return
		}
		http.Error(w, "no stream", http.StatusMethodNotAllowed)
		return
	}
	if r.Method != http.MethodPost {
		w.WriteHeader(http.StatusOK)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
	}
	_ = json.Unmarshal(body, &m)
	id := string(m.ID)
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "initialize":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, id)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[{"name":"create_booking","description":"Creates a booking.","inputSchema":{"type":"object","properties":{"room":{"type":"string"}}}}]}}`, id)
	case "tools/call":
		n := int(f.calls.Add(1))
		if f.onCall != nil && f.onCall(n, id, w, r) {
			return
		}
		f.execute(w, id)
	case "":
		w.WriteHeader(http.StatusAccepted)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}
}

// runFake runs the proxy with --upstream-url to f, makes the given number
// of create_booking calls and returns the answers and the final report.
func runFake(t *testing.T, f *fakeMCP, calls int, env []string, flags ...string) ([][]byte, upstreamReport, *peer) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, env, append([]string{"--upstream-url", f.url(), "--audit-tools", "off", "--report-file", report}, flags...)...)
	p.initialize()
	var answers [][]byte
	for i := range calls {
		answers = append(answers, requestWithin(t, p, 20*time.Second, fmt.Sprint(10+i), "tools/call", bookingCall))
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	r, _ := readUpstreamReport(t, report)
	return answers, r, p
}

// TestHTTPUpstreamRedirectNotFollowed (issue 17 items 3, 7): an upstream
// that executes the call and answers 307 to another server: the proxy
// does not follow — the target gets no request and no configured header —,
// the agent gets an isError result naming the status and the Location,
// and the run is not PASS (the outcome is unknown). A redirect to itself
// executes the call once, not ten times.
func TestHTTPUpstreamRedirectNotFollowed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Run("to another server", func(t *testing.T) {
		var targetHits atomic.Int32
		var mu sync.Mutex
		var targetKeys []string
		target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			targetHits.Add(1)
			mu.Lock()
			targetKeys = append(targetKeys, r.Header.Get("X-Api-Key"))
			mu.Unlock()
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"booked"}]}}`)
		}))
		defer target.Close()
		f := newFakeMCP(t)
		f.onCall = func(_ int, _ string, w http.ResponseWriter, r *http.Request) bool {
			f.executed.Add(1) // executes, then redirects
			http.Redirect(w, r, target.URL+"/mcp", http.StatusTemporaryRedirect)
			return true
		}
		answers, r, _ := runFake(t, f, 1, []string{"API_KEY=k-s3cr3t"}, "--upstream-header-env", "X-Api-Key=API_KEY")
		a := string(answers[0])
		for _, want := range []string{`"isError":true`, "HTTP 307", "Location: " + target.URL + "/mcp"} {
			if !strings.Contains(a, want) {
				t.Errorf("answer lacks %q: %s", want, a)
			}
		}
		if r.Verdict == "PASS" || len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "EXECUTION_UNKNOWN" {
			t.Errorf("verdict %s, operations %+v", r.Verdict, r.Report.Operations)
		}
		if n := targetHits.Load(); n != 0 {
			t.Errorf("the redirect target got %d requests (X-Api-Key %q)", n, targetKeys)
		}
		if n := f.executed.Load(); n != 1 {
			t.Errorf("the upstream executed %d times", n)
		}
	})
	t.Run("loop", func(t *testing.T) {
		f := newFakeMCP(t)
		f.onCall = func(_ int, _ string, w http.ResponseWriter, r *http.Request) bool {
			f.executed.Add(1)
			http.Redirect(w, r, f.url(), http.StatusTemporaryRedirect)
			return true
		}
		_, r, _ := runFake(t, f, 1, nil)
		if n := f.executed.Load(); n != 1 || r.Verdict == "PASS" {
			t.Errorf("the upstream executed %d times; verdict %s", n, r.Verdict)
		}
	})
}

// TestHTTPUpstreamNotExecutedStatusRetry (issue 17 item 12): a 429 (and a
// 404 to a request without a session id) proves no tool ran: the agent's
// re-send that executes once is an ordinary retry, PASS, never
// EXECUTION_UNKNOWN.
func TestHTTPUpstreamNotExecutedStatusRetry(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusNotFound} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := newFakeMCP(t)
			f.onCall = func(n int, _ string, w http.ResponseWriter, _ *http.Request) bool {
				if n > 1 {
					return false
				}
				w.Header().Set("Retry-After", "1")
				http.Error(w, http.StatusText(status), status)
				return true
			}
			tracePath := filepath.Join(t.TempDir(), "trace.jsonl")
			answers, r, _ := runFake(t, f, 2, nil, "--trace", tracePath)
			if !strings.Contains(string(answers[0]), "did not reach a tool") || strings.Contains(string(answers[0]), "agent-harness/outcome") {
				t.Errorf("first answer %s", answers[0])
			}
			if !strings.Contains(string(answers[1]), "booked") {
				t.Errorf("second answer %s", answers[1])
			}
			ops := r.Report.Operations
			if r.Verdict != "PASS" || len(ops) != 1 || ops[0].Outcome != "EXECUTED" || ops[0].Executions != 1 || f.executed.Load() != 1 {
				t.Errorf("verdict %s, operations %+v, upstream executed %d", r.Verdict, ops, f.executed.Load())
			}
			// The trace holds the outcome, not the mark: judged again
			// offline, the run is the same PASS.
			trace, err := os.ReadFile(tracePath)
			if err != nil || !strings.Contains(string(trace), `"outcome":"upstream-not-executed"`) || strings.Contains(string(trace), "not-executed/") {
				t.Errorf("trace: %v\n%s", err, trace)
			}
			if run, again := rejudge(t, tracePath); run.code != 0 || !strings.Contains(string(again), `"verdict":"PASS"`) {
				t.Errorf("judge TRACE: exit %d, %s\n%s", run.code, run.stderr, again)
			}
		})
	}
}

// TestHTTPUpstreamShortBody (issue 17 item 14): a complete JSON answer
// whose Content-Length promises more bytes (the server then closes) is
// never delivered: the call's outcome is unknown at once, not after
// --upstream-timeout (10m here).
func TestHTTPUpstreamShortBody(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	f := newFakeMCP(t)
	f.onCall = func(_ int, id string, w http.ResponseWriter, _ *http.Request) bool {
		f.executed.Add(1)
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Content-Length", fmt.Sprint(len(body)+100))
		io.WriteString(w, body)
		return true
	}
	answers, r, _ := runFake(t, f, 1, nil, "--upstream-timeout", "10m")
	if a := string(answers[0]); !strings.Contains(a, "broke off") || !strings.Contains(a, `"isError":true`) {
		t.Errorf("answer %s", a)
	}
	if r.Verdict == "PASS" || len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "EXECUTION_UNKNOWN" {
		t.Errorf("verdict %s, operations %+v", r.Verdict, r.Report.Operations)
	}
}

// TestHTTPUpstreamStreamResumed (issue 17 item 15): an upstream that
// closes the POST's event stream after an event id (2025-11-25 polling)
// and answers on the resumed GET stream (Last-Event-ID): the answer
// reaches the agent and the run is judged (PASS, one execution), not
// NOT_TESTED.
func TestHTTPUpstreamStreamResumed(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	f := newFakeMCP(t)
	var pendingID atomic.Value
	f.onCall = func(_ int, id string, w http.ResponseWriter, _ *http.Request) bool {
		f.executed.Add(1)
		pendingID.Store(id)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: call-1-0\nretry: 0\ndata: \n\n")
		return true
	}
	f.onGet = func(w http.ResponseWriter, r *http.Request) {
		id, _ := pendingID.Load().(string)
		if r.Header.Get("Last-Event-ID") != "call-1-0" || id == "" {
			http.Error(w, "no stream", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "id: call-1-1\ndata: {\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"booked\"}]}}\n\n", id)
	}
	answers, r, _ := runFake(t, f, 1, nil)
	if !strings.Contains(string(answers[0]), "booked") {
		t.Errorf("answer %s", answers[0])
	}
	ops := r.Report.Operations
	if r.Verdict != "PASS" || len(ops) != 1 || ops[0].Outcome != "EXECUTED" || ops[0].Executions != 1 {
		t.Errorf("verdict %s, operations %+v", r.Verdict, ops)
	}
}

// runFakeWarm is runFake with a ping answered before the calls, so the
// upstream's keep-alive connection is warm and the tools/call goes over a
// reused one, as in any longer session.
func runFakeWarm(t *testing.T, f *fakeMCP, calls int, flags ...string) ([][]byte, upstreamReport, *peer) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, nil, append([]string{"--upstream-url", f.url(), "--audit-tools", "off", "--report-file", report}, flags...)...)
	p.initialize()
	requestWithin(t, p, 20*time.Second, "2", "ping", "{}")
	var answers [][]byte
	for i := range calls {
		answers = append(answers, requestWithin(t, p, 20*time.Second, fmt.Sprint(10+i), "tools/call", bookingCall))
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	r, _ := readUpstreamReport(t, report)
	return answers, r, p
}

// executeThenDrop makes f execute its first tools/call and drop the
// connection before the answer; later calls execute and answer.
func executeThenDrop(f *fakeMCP) {
	f.onCall = func(n int, _ string, w http.ResponseWriter, _ *http.Request) bool {
		if n > 1 {
			return false
		}
		f.executed.Add(1)
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return true
	}
}

// TestHTTPUpstreamIdempotencyKeyNoReplay (red team 1, finding 1): the
// upstream reads the agent's create_booking, writes it, and its
// connection drops before the answer. With an Idempotency-Key header on
// the upstream requests (--upstream-header), net/http re-sent the POST by
// itself on a new connection: the upstream wrote the booking twice and the
// judge, seeing one attempt answered "booked", said PASS with one
// execution. Now the tools/call reaches the upstream once and the agent
// gets the unknown outcome of a connection lost before the answer.
func TestHTTPUpstreamIdempotencyKeyNoReplay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	f := newFakeMCP(t)
	executeThenDrop(f)
	answers, r, _ := runFakeWarm(t, f, 1, "--upstream-header", "Idempotency-Key: booking-9")
	if n := f.calls.Load(); n != 1 || f.executed.Load() != 1 {
		t.Errorf("the upstream got the agent's one tools/call %d times and executed it %d times", n, f.executed.Load())
	}
	if a := string(answers[0]); !strings.Contains(a, "failed before an answer") || !strings.Contains(a, `"isError":true`) || strings.Contains(a, "booked") {
		t.Errorf("answer %s", a)
	}
	if ops := r.Report.Operations; r.Verdict != "NOT_TESTED" || len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" {
		t.Errorf("verdict %s, operations %+v", r.Verdict, ops)
	}
}

// TestHTTPUpstreamAgentIdempotencyKeyNoReplay is
// TestHTTPUpstreamIdempotencyKeyNoReplay with the header from an HTTP
// agent (--listen), whose end-to-end headers reach the upstream: an agent
// sending Idempotency-Key turned every connection lost after the upstream
// read a tools/call into a silent re-execution and a PASS.
func TestHTTPUpstreamAgentIdempotencyKeyNoReplay(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	f := newFakeMCP(t)
	executeThenDrop(f)
	p := startHTTPProxy(t, "--upstream-url", f.url(), "--audit-tools", "off")
	s := newRawSession(t, p.url)
	s.extra = []string{"Idempotency-Key", "agent-booking-9"}
	s.initialize()
	var answer []byte
	for i, m := range []string{rpcRequest("2", "ping", "{}"), rpcRequest("3", "tools/call", bookingCall)} {
		resp := s.post(m)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if i == 1 {
			answer = b
		}
	}
	p.stop(syscall.SIGTERM)
	r, _ := readUpstreamReport(t, p.report)
	if n := f.calls.Load(); n != 1 || f.executed.Load() != 1 {
		t.Errorf("the upstream got the agent's one tools/call %d times and executed it %d times", n, f.executed.Load())
	}
	if !bytes.Contains(answer, []byte("failed before an answer")) || bytes.Contains(answer, []byte("booked")) {
		t.Errorf("answer %s", answer)
	}
	if ops := r.Report.Operations; r.Verdict != "NOT_TESTED" || len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" {
		t.Errorf("verdict %s, operations %+v", r.Verdict, ops)
	}
}

// TestHTTPUpstreamStatusWithResultBodyUnknown (red team 1, finding 4): the
// upstream executes the booking and answers HTTP 429 (or 400) whose body
// is the JSON-RPC result of that very call — a quota middleware that set
// the status after the handler ran. The attempt was judged not executed,
// the agent's re-send executed again: PASS with one execution, two at the
// upstream. A status proves no tool ran only when the body does not answer
// the call: here the first attempt is unknown, so the re-send makes the
// run NOT_TESTED (EXECUTION_UNKNOWN), never PASS.
func TestHTTPUpstreamStatusWithResultBodyUnknown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	for _, status := range []int{http.StatusTooManyRequests, http.StatusBadRequest} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			f := newFakeMCP(t)
			f.onCall = func(n int, id string, w http.ResponseWriter, _ *http.Request) bool {
				if n > 1 {
					return false
				}
				f.executed.Add(1)
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(status)
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
				return true
			}
			answers, r, p := runFake(t, f, 2, nil)
			if a := string(answers[0]); !strings.Contains(a, fmt.Sprintf("HTTP %d", status)) || !strings.Contains(a, "its body is the call's response") || !strings.Contains(a, `"agent-harness/outcome":"unknown"`) {
				t.Errorf("first answer %s", a)
			}
			if !strings.Contains(p.stderr.String(), fmt.Sprintf("WARNING: the upstream answered HTTP %d to a request (tools/call) but its body is the call's response", status)) {
				t.Errorf("stderr:\n%s", p.stderr.String())
			}
			if ops := r.Report.Operations; r.Verdict != "NOT_TESTED" || len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" || f.executed.Load() != 2 {
				t.Errorf("verdict %s, operations %+v, the upstream executed %d times", r.Verdict, r.Report.Operations, f.executed.Load())
			}
		})
	}
}

// TestHTTPUpstreamBatchAnswerUnknown (red team 1, finding 7): an upstream
// that answers a tools/call with a JSON-RPC batch (holding the answer with
// the proxy's upstream id) or with a body that is not JSON: nothing of it
// reaches the agent raw — no line with the proxy's id — and the agent gets
// the unknown-outcome isError answer with its own id.
func TestHTTPUpstreamBatchAnswerUnknown(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	for name, body := range map[string]string{
		"batch":    `[{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}]`,
		"not JSON": `booked %s`,
	} {
		t.Run(name, func(t *testing.T) {
			f := newFakeMCP(t)
			var upstreamID string
			f.onCall = func(_ int, id string, w http.ResponseWriter, _ *http.Request) bool {
				f.executed.Add(1)
				upstreamID = id
				w.Header().Set("Content-Type", "application/json")
				fmt.Fprintf(w, body, id)
				return true
			}
			report := filepath.Join(t.TempDir(), "report.json")
			p := startProxy(t, nil, "--upstream-url", f.url(), "--audit-tools", "off", "--report-file", report)
			p.initialize()
			p.send(rpcRequest("10", "tools/call", bookingCall))
			before, answer := p.until("10")
			for _, m := range before {
				if bytes.Contains(m, []byte("booked")) {
					t.Errorf("the upstream's answer reached the agent raw: %s", m)
				}
			}
			if a := string(answer); !strings.Contains(a, "not one JSON-RPC message") || !strings.Contains(a, `"agent-harness/outcome":"unknown"`) || strings.Contains(a, "booked") {
				t.Errorf("answer %s", a)
			}
			if code, _ := p.closeAndWait(); code != 0 {
				t.Fatalf("exit %d\n%s", code, p.stderr.String())
			}
			if !strings.Contains(p.stderr.String(), "WARNING: the upstream sent") {
				t.Errorf("stderr:\n%s", p.stderr.String())
			}
			r, _ := readUpstreamReport(t, report)
			if ops := r.Report.Operations; upstreamID == "" || r.Verdict != "NOT_TESTED" || len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" {
				t.Errorf("upstream id %q, verdict %s, operations %+v", upstreamID, r.Verdict, ops)
			}
		})
	}
}

// twoToolMCP is a loopback MCP endpoint (JSON answers, no session)
// listing a read tool (get_booking) and a write tool (create_booking);
// onCall answers the tools/calls (false: execute).
type twoToolMCP struct {
	srv      *httptest.Server
	executed atomic.Int32 // create_booking executions
	onCall   func(tool, args, id string, w http.ResponseWriter) bool
}

func newTwoToolMCP(t *testing.T) *twoToolMCP {
	f := &twoToolMCP{}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *twoToolMCP) serve(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "no stream", http.StatusMethodNotAllowed)
		return
	}
	body, _ := io.ReadAll(r.Body)
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method string          `json:"method"`
		Params struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		} `json:"params"`
	}
	_ = json.Unmarshal(body, &m)
	id := string(m.ID)
	if m.ID == nil {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch m.Method {
	case "initialize":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`, id)
	case "tools/list":
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"tools":[`+
			`{"name":"create_booking","description":"Creates a booking.","inputSchema":{"type":"object"}},`+
			`{"name":"get_booking","description":"Reads a booking.","inputSchema":{"type":"object"}}]}}`, id)
	case "tools/call":
		if f.onCall != nil && f.onCall(m.Params.Name, string(m.Params.Arguments), id, w) {
			return
		}
		if m.Params.Name == "create_booking" {
			f.executed.Add(1)
		}
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
	default:
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, id)
	}
}

// TestHTTPUpstreamRetryAfterMarkNeverLeaks (red team 1, finding 3): an
// upstream answers a read with HTTP 429 and "Retry-After: \xff" (obs-text,
// allowed in HTTP). The proxy's own not-executed answer quoted it as \xff,
// not JSON: the relay forwarded the line raw to the agent, the process's
// secret mark included, and an agent echoing it into its next write let
// the upstream forge the mark on an executed answer — a double booking
// judged PASS. Now the agent gets valid JSON without the mark, the
// upstream finds no secret to forge with, and the judge counts what the
// upstream did: two executions, FAIL.
func TestHTTPUpstreamRetryAfterMarkNeverLeaks(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	f := newTwoToolMCP(t)
	secretRE := regexp.MustCompile(`not-executed/[A-Z2-7]+`)
	var forged atomic.Int32
	f.onCall = func(tool, args, id string, w http.ResponseWriter) bool {
		switch tool {
		case "get_booking":
			w.Header()["Retry-After"] = []string{"\xff"}
			w.WriteHeader(http.StatusTooManyRequests)
			return true
		case "create_booking":
			if secret := secretRE.FindString(strings.ReplaceAll(args, `\`, "")); secret != "" {
				forged.Add(1)
				f.executed.Add(1) // written, answered with a forged mark
				fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"HTTP 429; the request did not reach a tool"}],"isError":true,"_meta":{"agent-harness/outcome":%q}}}`, id, secret)
				return true
			}
		}
		return false
	}
	report := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, nil, "--upstream-url", f.srv.URL+"/mcp", "--audit-tools", "off", "--report-file", report, "--upstream-timeout", "3s")
	p.initialize()
	p.send(rpcRequest("5", "tools/call", `{"name":"get_booking","arguments":{"room":"9"}}`))
	seen, answer := p.until("5")
	seen = append(seen, answer)
	for _, m := range seen {
		if secretRE.Match(m) || !json.Valid(m) {
			t.Errorf("the agent got the mark or a line that is not JSON: %s", m)
		}
	}
	if !strings.Contains(string(answer), `(Retry-After: \\xff)`) || !strings.Contains(string(answer), "did not reach a tool") {
		t.Errorf("read's answer %s", answer)
	}
	// The agent quotes what it saw in its booking, and re-sends it as is.
	call, _ := json.Marshal(map[string]any{"name": "create_booking", "arguments": map[string]string{"room": "9", "note": string(bytes.Join(seen, nil))}})
	requestWithin(t, p, 20*time.Second, "10", "tools/call", string(call))
	requestWithin(t, p, 20*time.Second, "11", "tools/call", string(call))
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	r, _ := readUpstreamReport(t, report)
	if forged.Load() != 0 || r.Verdict != "FAIL" || r.executions("create_booking") != 2 || f.executed.Load() != 2 {
		t.Errorf("forged %d, verdict %s, operations %+v, the upstream executed the booking %d times", forged.Load(), r.Verdict, r.Report.Operations, f.executed.Load())
	}
}
