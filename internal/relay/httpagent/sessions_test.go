package httpagent

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// logLines collects Options.Logf lines.
type logLines struct {
	mu    sync.Mutex
	lines []string
}

func (l *logLines) logf(f string, a ...any) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf(f, a...))
	l.mu.Unlock()
}

func (l *logLines) count(sub string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	for _, line := range l.lines {
		if strings.Contains(line, sub) {
			n++
		}
	}
	return n
}

// serve runs one request through the handler (no network: the tests
// run in a synctest bubble, with its clock).
func serve(srv *Server, ctx context.Context, method, sid, body string) *httptest.ResponseRecorder {
	r := httptest.NewRequest(method, "http://127.0.0.1:1/mcp", strings.NewReader(body)).WithContext(ctx)
	r.Header.Set("Content-Type", "application/json")
	r.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		r.Header.Set("Mcp-Session-Id", sid)
	}
	w := httptest.NewRecorder()
	srv.ServeHTTP(w, r)
	return w
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`

// countingRelay is fakeRelay, counting the relay sessions started and
// those that returned (their upstream stopped).
type countingRelay struct {
	mu             sync.Mutex
	started, ended int
}

func (c *countingRelay) run(ctx context.Context, conn relay.Conn, id string) error {
	c.mu.Lock()
	c.started++
	c.mu.Unlock()
	err := fakeRelay(ctx, conn, id)
	c.mu.Lock()
	c.ended++
	c.mu.Unlock()
	return err
}

func (c *countingRelay) counts() (started, ended int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.started, c.ended
}

// TestMaxSessions: with MaxSessions 2, a third initialize (and a stateless
// request, which would start the shared session) gets 503 naming the
// limit and starts no relay session, so no upstream; one stderr line for
// the refusals. A slot is free once an ended session's relay returned.
func TestMaxSessions(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rel countingRelay
		var log logLines
		srv := New(Options{Run: rel.run, MaxSessions: 2, Logf: log.logf})
		defer srv.Shutdown(context.Background())
		ctx := context.Background()
		var sids []string
		for range 2 {
			w := serve(srv, ctx, http.MethodPost, "", initBody)
			if w.Code != http.StatusOK || w.Header().Get("Mcp-Session-Id") == "" {
				t.Fatalf("initialize: %d %q", w.Code, w.Body)
			}
			sids = append(sids, w.Header().Get("Mcp-Session-Id"))
		}
		for _, body := range []string{initBody, initBody, `{"jsonrpc":"2.0","id":7,"method":"tools/list"}`} {
			w := serve(srv, ctx, http.MethodPost, "", body)
			want := "Service Unavailable: the proxy serves at most 2 sessions at once (--max-sessions)"
			if w.Code != http.StatusServiceUnavailable || !strings.HasPrefix(w.Body.String(), want) || w.Header().Get("Mcp-Session-Id") != "" {
				t.Fatalf("beyond the limit: %d %q, want 503 %q", w.Code, w.Body, want)
			}
		}
		synctest.Wait()
		if started, _ := rel.counts(); started != 2 {
			t.Fatalf("%d relay sessions started, want 2", started)
		}
		if n := log.count("refused a new session (503): 2 sessions are open"); n != 1 {
			t.Fatalf("%d refusal lines, want 1: %q", n, log.lines)
		}
		// The open sessions still work.
		if w := serve(srv, ctx, http.MethodPost, sids[1], `{"jsonrpc":"2.0","id":2,"method":"ping"}`); w.Code != http.StatusOK {
			t.Fatalf("an open session: %d %q", w.Code, w.Body)
		}
		if w := serve(srv, ctx, http.MethodDelete, sids[0], ""); w.Code != http.StatusOK {
			t.Fatalf("DELETE: %d", w.Code)
		}
		synctest.Wait() // its relay session returned
		if w := serve(srv, ctx, http.MethodPost, "", initBody); w.Code != http.StatusOK {
			t.Fatalf("initialize after a DELETE: %d %q", w.Code, w.Body)
		}
		if started, ended := rel.counts(); started != 3 || ended != 1 {
			t.Fatalf("started %d ended %d, want 3 and 1", started, ended)
		}
	})
}

// TestSessionIdleExpiry: on the bubble's clock, a session with an open GET
// stream never expires; after the stream closed, a request restarts the
// idle clock; with neither for SessionIdle (default 10 m) the session
// ends: its relay session returns (its upstream stops with it), one
// stderr line, and its id is 404.
func TestSessionIdleExpiry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var rel countingRelay
		var log logLines
		srv := New(Options{Run: rel.run, Logf: log.logf})
		defer srv.Shutdown(context.Background())
		w := serve(srv, context.Background(), http.MethodPost, "", initBody)
		sid := w.Header().Get("Mcp-Session-Id")
		ended := func() bool { synctest.Wait(); _, e := rel.counts(); return e > 0 }

		gctx, closeGet := context.WithCancel(context.Background())
		getDone := make(chan struct{})
		go func() {
			defer close(getDone)
			serve(srv, gctx, http.MethodGet, sid, "")
		}()
		time.Sleep(time.Hour)
		if ended() {
			t.Fatal("a session with an open GET stream expired")
		}
		closeGet()
		<-getDone
		time.Sleep(DefaultSessionIdle - time.Second)
		if ended() {
			t.Fatal("expired before 10 minutes")
		}
		if w := serve(srv, context.Background(), http.MethodPost, sid, `{"jsonrpc":"2.0","id":2,"method":"ping"}`); w.Code != http.StatusOK {
			t.Fatalf("ping: %d %q", w.Code, w.Body)
		}
		time.Sleep(DefaultSessionIdle - time.Second)
		if ended() {
			t.Fatal("a request did not restart the idle clock")
		}
		time.Sleep(time.Second)
		if !ended() {
			t.Fatal("the session did not end after 10 minutes without a request or stream")
		}
		if n := log.count("ended: neither a request nor an open stream for 10m0s"); n != 1 {
			t.Fatalf("lines %q", log.lines)
		}
		if w := serve(srv, context.Background(), http.MethodPost, sid, `{"jsonrpc":"2.0","id":3,"method":"ping"}`); w.Code != http.StatusNotFound {
			t.Fatalf("after expiry: %d, want 404", w.Code)
		}
	})
}
