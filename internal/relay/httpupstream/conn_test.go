package httpupstream

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
)

const callMsg = `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"1"}}}` + "\n"

// roundTrip sends msg over a Conn to url and returns the first message the
// Conn hands back, failing after limit.
func roundTrip(t *testing.T, opts Options, msg string, limit time.Duration) string {
	t.Helper()
	c := New(opts)
	t.Cleanup(func() { _ = c.Close() })
	if err := c.WriteMessage([]byte(msg)); err != nil {
		t.Fatal(err)
	}
	got := make(chan string, 1)
	go func() {
		m, err := c.ReadMessage()
		if err != nil {
			got <- "error: " + err.Error()
			return
		}
		got <- string(m)
	}()
	select {
	case m := <-got:
		return m
	case <-time.After(limit):
		t.Fatalf("no message from the Conn within %v", limit)
		return ""
	}
}

// TestRedirectNotFollowed (issue 17 items 3, 7): a 307/308/302 answer to a
// tools/call is never followed — the target gets no request and none of
// the configured headers — and the agent gets an isError result naming
// the status and the Location, marked unknown (the request reached a
// server).
func TestRedirectNotFollowed(t *testing.T) {
	for _, status := range []int{http.StatusTemporaryRedirect, http.StatusPermanentRedirect, http.StatusFound} {
		t.Run(fmt.Sprint(status), func(t *testing.T) {
			var targetHits atomic.Int32
			var targetHeaders sync.Map
			target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				targetHits.Add(1)
				targetHeaders.Store(r.Header.Get("X-Api-Key"), true)
				w.Header().Set("Content-Type", "application/json")
				io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)
			}))
			defer target.Close()
			var originHits atomic.Int32
			origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				originHits.Add(1)
				http.Redirect(w, r, target.URL+"/mcp", status)
			}))
			defer origin.Close()
			h := http.Header{}
			h.Set("X-Api-Key", "s3cr3t")
			m := roundTrip(t, Options{URL: origin.URL + "/mcp", Header: h}, callMsg, 10*time.Second)
			for _, want := range []string{`"id":7`, `"isError":true`, fmt.Sprintf("HTTP %d", status), "Location: " + target.URL + "/mcp", "does not follow redirects", `"agent-harness/outcome":"unknown"`} {
				if !strings.Contains(m, want) {
					t.Errorf("answer lacks %q: %s", want, m)
				}
			}
			if n := targetHits.Load(); n != 0 {
				t.Errorf("the redirect target got %d requests", n)
			}
			if _, leaked := targetHeaders.Load("s3cr3t"); leaked {
				t.Error("the redirect target got the configured X-Api-Key")
			}
			if n := originHits.Load(); n != 1 {
				t.Errorf("the origin got %d requests, want 1", n)
			}
		})
	}
}

// TestRedirectLoopExecutesOnce (item 3): an upstream that redirects to
// itself gets the call once, not ten times.
func TestRedirectLoopExecutesOnce(t *testing.T) {
	var hits atomic.Int32
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.Redirect(w, r, srv.URL+"/mcp", http.StatusTemporaryRedirect)
	}))
	defer srv.Close()
	m := roundTrip(t, Options{URL: srv.URL + "/mcp"}, callMsg, 10*time.Second)
	if !strings.Contains(m, "HTTP 307") || hits.Load() != 1 {
		t.Errorf("%d requests; answer %s", hits.Load(), m)
	}
}

// TestNotExecutedStatusMarked (item 12): a status that proves no tool ran
// gives a tools/call an isError result carrying the process's secret
// not-executed mark; a 404 to a request without a session id too.
func TestNotExecutedStatusMarked(t *testing.T) {
	for _, status := range []int{400, 401, 403, 404, 405, 415, 429} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "no", status)
		}))
		m := roundTrip(t, Options{URL: srv.URL}, callMsg, 10*time.Second)
		srv.Close()
		mark := fmt.Sprintf(`"_meta":{%q:%q}}}`, relay.OutcomeMetaKey, relay.NotExecutedMark)
		if !strings.HasSuffix(strings.TrimSpace(m), mark) || !strings.Contains(m, "did not reach a tool") {
			t.Errorf("HTTP %d: %s", status, m)
		}
	}
}

// TestShortBodyUnknownAtOnce (item 14): a JSON answer whose body ends
// before its Content-Length is never delivered; the call gets an answer of
// unknown outcome at once (not after the relay's call timeout).
func TestShortBodyUnknownAtOnce(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		_, _ = io.Copy(io.Discard, req.Body)
		body := `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`
		fmt.Fprintf(conn, "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body)+50, body)
	}()
	m := roundTrip(t, Options{URL: "http://" + ln.Addr().String() + "/mcp"}, callMsg, 10*time.Second)
	if !strings.Contains(m, "broke off") || !strings.Contains(m, `"agent-harness/outcome":"unknown"`) || strings.Contains(m, `"content":[]`) {
		t.Errorf("answer %s", m)
	}
}

// TestStreamResumed (item 15): a POST's event stream that closes after an
// event id without the answer (2025-11-25 polling) is resumed with GET
// and Last-Event-ID; the answer from the resumed stream reaches the relay.
func TestStreamResumed(t *testing.T) {
	var gets atomic.Int32
	var lastIDs sync.Map
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		switch r.Method {
		case http.MethodPost:
			io.WriteString(w, "id: ev-1\nretry: 0\ndata: \n\n")
		case http.MethodGet:
			n := gets.Add(1)
			lastIDs.Store(n, r.Header.Get("Last-Event-ID"))
			if n == 1 {
				// Still working: another priming event, then close.
				io.WriteString(w, "id: ev-2\nretry: 0\ndata: \n\n")
				return
			}
			io.WriteString(w, "id: ev-3\ndata: {\"jsonrpc\":\"2.0\",\"id\":7,\"result\":{\"content\":[{\"type\":\"text\",\"text\":\"booked 1\"}]}}\n\n")
		}
	}))
	defer srv.Close()
	m := roundTrip(t, Options{URL: srv.URL, Timeout: time.Minute}, callMsg, 20*time.Second)
	if !strings.Contains(m, "booked 1") {
		t.Fatalf("answer %s", m)
	}
	if gets.Load() != 2 {
		t.Errorf("%d GETs, want 2", gets.Load())
	}
	for n, want := range map[int32]string{1: "ev-1", 2: "ev-2"} {
		if v, _ := lastIDs.Load(n); v != want {
			t.Errorf("GET %d: Last-Event-ID %v, want %s", n, v, want)
		}
	}
}

// TestStreamResumeRefused: a resumption the upstream refuses (405) ends in
// an answer of unknown outcome naming the status.
func TestStreamResumeRefused(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodGet {
			http.Error(w, "no", http.StatusMethodNotAllowed)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: ev-1\nretry: 0\ndata: \n\n")
	}))
	defer srv.Close()
	m := roundTrip(t, Options{URL: srv.URL, Timeout: time.Minute}, callMsg, 20*time.Second)
	if !strings.Contains(m, "HTTP 405 to resuming the event stream after event ev-1") || !strings.Contains(m, `"agent-harness/outcome":"unknown"`) {
		t.Errorf("answer %s", m)
	}
}

// TestStreamResumeBoundedByTimeout: an upstream that keeps closing the
// stream without the answer is resumed until Options.Timeout, then the
// call gets an answer of unknown outcome.
func TestStreamResumeBoundedByTimeout(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "id: ev-1\nretry: 0\ndata: \n\n")
	}))
	defer srv.Close()
	m := roundTrip(t, Options{URL: srv.URL, Timeout: 500 * time.Millisecond}, callMsg, 20*time.Second)
	if !strings.Contains(m, "did not resume within the upstream timeout") {
		t.Errorf("answer %s", m)
	}
}

// TestRedirectNotFollowedGetDelete (item 3): the GET stream and the
// DELETE that ends the session are not redirected either.
func TestRedirectNotFollowedGetDelete(t *testing.T) {
	var targetHits atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		targetHits.Add(1)
	}))
	defer target.Close()
	methods := make(chan string, 4)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			w.Header().Set("Mcp-Session-Id", "sess-1")
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-11-25","capabilities":{}}}`)
			return
		}
		methods <- r.Method
		http.Redirect(w, r, target.URL, http.StatusTemporaryRedirect)
	}))
	defer origin.Close()
	c := New(Options{URL: origin.URL})
	if err := c.WriteMessage([]byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if m, err := c.ReadMessage(); err != nil || !strings.Contains(string(m), "protocolVersion") {
		t.Fatalf("initialize: %s %v", m, err)
	}
	if m := <-methods; m != http.MethodGet {
		t.Fatalf("first non-POST request %s, want the GET stream", m)
	}
	_ = c.Close()
	if m := <-methods; m != http.MethodDelete {
		t.Fatalf("second non-POST request %s, want DELETE", m)
	}
	if n := targetHits.Load(); n != 0 {
		t.Errorf("the redirect target got %d requests", n)
	}
}
