package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
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

// requestWithin is peer.request bounded by d instead of e2eWait.
func requestWithin(t *testing.T, p *peer, d time.Duration, id, method, params string) []byte {
	t.Helper()
	p.send(rpcRequest(id, method, params))
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("the proxy closed its output; stderr:\n%s", p.stderr.String())
			}
			var env struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(m, &env)
			if env.Method == "" && string(env.ID) == id {
				return m
			}
		case <-deadline:
			t.Fatalf("no answer to %s within %s; stderr:\n%s", id, d, p.stderr.String())
		}
	}
}

const bookingCall = `{"name":"create_booking","arguments":{"room":"9"}}`

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
