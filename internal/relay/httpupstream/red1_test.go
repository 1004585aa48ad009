package httpupstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// red1Server is a loopback MCP endpoint (no session) for the red-team
// tests: ping and notifications answer at once; tools/call runs onCall.
func red1Server(t *testing.T, onCall func(n int, id string, w http.ResponseWriter, r *http.Request)) (*httptest.Server, *atomic.Int32) {
	var calls atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		switch m.Method {
		case "tools/call":
			onCall(int(calls.Add(1)), string(m.ID), w, r)
		case "ping":
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{}}`, m.ID)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	t.Cleanup(srv.Close)
	return srv, &calls
}

// red1Reader hands out c's messages, one goroutine per Conn.
type red1Reader struct{ ch chan string }

func newRed1Reader(c *Conn) *red1Reader {
	r := &red1Reader{ch: make(chan string, 64)}
	go func() {
		for {
			m, err := c.ReadMessage()
			if err != nil {
				close(r.ch)
				return
			}
			r.ch <- string(m)
		}
	}()
	return r
}

// next reads messages until n arrived or limit passed.
func (r *red1Reader) next(n int, limit time.Duration) []string {
	var got []string
	deadline := time.After(limit)
	for len(got) < n {
		select {
		case m, ok := <-r.ch:
			if !ok {
				return got
			}
			got = append(got, m)
		case <-deadline:
			return got
		}
	}
	return got
}

// TestRed1IdempotencyKeyReplaysPost: with an Idempotency-Key header on
// the POST (an HTTP agent's own end-to-end header, which httpagent
// forwards, or --upstream-header), net/http treats the POST as replayable
// and re-sends it by itself when a reused keep-alive connection breaks
// before the response (the server read it, executed, and dropped the
// connection). The upstream executes the tools/call twice, the relay sees
// one request and one "booked" answer: the judge counts one execution.
// SPEC §17.5: "The HTTP upstream never replays a write behind the judge's
// back" — the expected answer is the unknown outcome of a connection that
// failed before the answer, and exactly one POST of the call.
func TestRed1IdempotencyKeyReplaysPost(t *testing.T) {
	var executed atomic.Int32
	srv, calls := red1Server(t, func(n int, id string, w http.ResponseWriter, r *http.Request) {
		executed.Add(1) // the booking is written
		if n == 1 {
			// The connection drops before the answer.
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"jsonrpc":"2.0","id":%s,"result":{"content":[{"type":"text","text":"booked"}]}}`, id)
	})
	h := http.Header{}
	h.Set("Idempotency-Key", "agent-key-1")
	c := New(Options{URL: srv.URL + "/mcp", Header: h})
	defer c.Close()
	rd := newRed1Reader(c)
	// A first request, so the tools/call goes over a reused connection.
	if err := c.WriteMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"ping"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if got := rd.next(1, 10*time.Second); len(got) != 1 {
		t.Fatalf("no ping answer: %q", got)
	}
	if err := c.WriteMessage([]byte(callMsg)); err != nil {
		t.Fatal(err)
	}
	got := rd.next(1, 10*time.Second)
	if len(got) != 1 {
		t.Fatalf("no answer to the call: %q", got)
	}
	t.Logf("the relay got: %s", got[0])
	if n := calls.Load(); n != 1 {
		t.Errorf("the Conn POSTed the tools/call %d times (the upstream executed it %d times); the relay saw one request", n, executed.Load())
	}
	if strings.Contains(got[0], "booked") && !strings.Contains(got[0], "agent-harness/outcome") {
		t.Errorf("the call's answer is an executed result (judged one execution) after %d executions: %s", executed.Load(), got[0])
	}
}

// TestRed1RetryAfterBreaksMarkedAnswer: the 429's Retry-After value is
// copied into the proxy's own not-executed answer through strconv.Quote,
// which writes Go escapes (\x01, \xff, \x7f) that are not JSON. The
// marked answer — carrying relay.NotExecutedMark, the per-process secret —
// is then invalid JSON: the relay does not match it to the call (which
// waits for --upstream-timeout and becomes unknown) and forwards the line
// "unchanged" to the agent, secret included (RATIONALE: the secret "never
// leaves the process"). Expected: a valid JSON answer, the mark removed
// before the agent sees anything.
func TestRed1RetryAfterBreaksMarkedAnswer(t *testing.T) {
	// \U000E0001 is valid UTF-8 that strconv.Quote writes as \U000e0001.
	for _, ra := range []string{"1\x01", "\xff", "2\x7f", "3\U000E0001"} {
		t.Run(fmt.Sprintf("%q", ra), func(t *testing.T) {
			srv, _ := red1Server(t, func(_ int, _ string, w http.ResponseWriter, _ *http.Request) {
				w.Header()["Retry-After"] = []string{ra}
				http.Error(w, "slow down", http.StatusTooManyRequests)
			})
			m := roundTrip(t, Options{URL: srv.URL + "/mcp"}, callMsg, 10*time.Second)
			if !json.Valid([]byte(m)) {
				t.Errorf("the Conn's own answer to a 429 is not JSON: %s", m)
			}
			if !strings.Contains(m, "Retry-After") {
				t.Fatalf("the Retry-After did not reach the answer (the client refused the header?): %s", m)
			}
		})
	}
}

// TestRed1PartialEventAtStreamEnd: the POST's event stream sends the
// priming event e0, then the answer's event e1 breaks off in its data
// line (the connection dropped). The SSE parser dispatches the unfinished
// event at the end of the body: its half JSON is handed to the relay
// (which forwards invalid JSON "unchanged" to the agent, with the proxy's
// upstream id) and e1 becomes the Last-Event-ID. A server that replays
// after Last-Event-ID then never resends e1: the executed call ends
// unknown at the timeout. An event is only dispatched at its blank line
// (HTML SSE: "If the file ends in the middle of an event ... the event
// is discarded"), so the resume should ask from e0 and get the answer.
func TestRed1PartialEventAtStreamEnd(t *testing.T) {
	var lastIDs []string
	var mu sync.Mutex
	full := `{"jsonrpc":"2.0","id":7,"result":{"content":[{"type":"text","text":"booked"}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			mu.Lock()
			lastIDs = append(lastIDs, r.Header.Get("Last-Event-ID"))
			mu.Unlock()
			w.Header().Set("Content-Type", "text/event-stream")
			if r.Header.Get("Last-Event-ID") == "e0" {
				io.WriteString(w, "id: e1\ndata: "+full+"\n\n")
			} // after e1: nothing new
			return
		}
		io.ReadAll(r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: e0\nretry: 100\ndata: \n\nid: e1\ndata: "+full[:40])
	}))
	defer srv.Close()
	c := New(Options{URL: srv.URL + "/mcp", Timeout: 2 * time.Second})
	defer c.Close()
	rd := newRed1Reader(c)
	if err := c.WriteMessage([]byte(callMsg)); err != nil {
		t.Fatal(err)
	}
	got := rd.next(2, 5*time.Second)
	mu.Lock()
	t.Logf("Last-Event-IDs sent: %q", lastIDs)
	mu.Unlock()
	if len(got) == 0 || got[0] != full {
		t.Errorf("the relay got %q; want the answer %s", got, full)
	}
	for _, m := range got {
		if !json.Valid([]byte(m)) {
			t.Errorf("the relay got a message that is not JSON (half an event): %s", m)
		}
	}
}
