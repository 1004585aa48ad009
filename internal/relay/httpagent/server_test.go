package httpagent

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/relay/sse"
)

// fakeRelay answers initialize, and for "emit" {"n": N} sends N
// notifications, then the answer; "notify" sends one notification and
// no answer (to land on the GET stream).
func fakeRelay(ctx context.Context, c relay.Conn, _ string) error {
	for {
		m, err := c.ReadMessage()
		if err != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct{ N int } `json:"params"`
		}
		_ = json.Unmarshal(m, &req)
		switch req.Method {
		case "emit":
			for i := 1; i <= req.Params.N; i++ {
				_ = c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","method":"notifications/message","params":{"i":%d}}`+"\n", i))
			}
		case "notify":
			_ = c.WriteMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"))
			continue
		}
		if req.ID != nil {
			_ = c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"m":%q}}`+"\n", req.ID, req.Method))
		}
	}
}

func post(t *testing.T, url, sid, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sid != "" {
		req.Header.Set("Mcp-Session-Id", sid)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

func events(t *testing.T, r io.Reader, n int) (ids, data []string) {
	t.Helper()
	_ = sse.ReadEvents(bufio.NewReader(r), func(id, _ string, d []byte) bool {
		ids = append(ids, id)
		data = append(data, string(d))
		return len(data) < n
	})
	return ids, data
}

func TestServerStreams(t *testing.T) {
	getClosed := make(chan struct{}, 4)
	testHookGetClosed = func() { getClosed <- struct{}{} }
	defer func() { testHookGetClosed = nil }()
	srv := New(Options{Run: fakeRelay})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	url := hs.URL + "/mcp"

	resp := post(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if sid == "" || resp.Header.Get("Content-Type") != "application/json" || !strings.Contains(string(b), `"initialize"`) {
		t.Fatalf("initialize: %v %s", resp.Header, b)
	}

	// Messages before the answer turn the POST into an event stream, in
	// order, the answer last.
	resp = post(t, url, sid, `{"jsonrpc":"2.0","id":2,"method":"emit","params":{"n":3}}`)
	if resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("emit: %v", resp.Header)
	}
	ids, data := events(t, resp.Body, 4)
	resp.Body.Close()
	want := []string{`"i":1`, `"i":2`, `"i":3`, `"id":2,"result"`}
	for i, w := range want {
		if i >= len(data) || !strings.Contains(data[i], w) || ids[i] != "" {
			t.Fatalf("POST stream events %q ids %q, want %q in order without ids", data, ids, want)
		}
	}

	// The GET stream: an event with an id; a second GET is 409; after a
	// reconnect, Last-Event-ID replays what came after it.
	get := func(last string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		req.Header.Set("Accept", "text/event-stream")
		req.Header.Set("Mcp-Session-Id", sid)
		if last != "" {
			req.Header.Set("Last-Event-ID", last)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	g := get("")
	if g.StatusCode != 200 {
		t.Fatalf("GET %d", g.StatusCode)
	}
	if r := get(""); r.StatusCode != http.StatusConflict {
		t.Fatalf("second GET %d, want 409", r.StatusCode)
	}
	r := post(t, url, sid, `{"jsonrpc":"2.0","method":"notify"}`)
	r.Body.Close()
	if r.StatusCode != http.StatusAccepted {
		t.Fatalf("notification: %d", r.StatusCode)
	}
	ids, data = events(t, g.Body, 1)
	g.Body.Close()
	if len(data) != 1 || ids[0] != "1" || !strings.Contains(data[0], "list_changed") {
		t.Fatalf("GET events %q ids %q", data, ids)
	}
	<-getClosed // the handler noticed the closed client
	g = get("0")
	ids, data = events(t, g.Body, 1)
	g.Body.Close()
	if len(data) != 1 || ids[0] != "1" {
		t.Fatalf("replayed events %q ids %q", data, ids)
	}

	// A duplicate open request id is refused without reaching the relay.
	// DELETE, then the session is unknown.
	req, _ := http.NewRequest(http.MethodDelete, url, nil)
	req.Header.Set("Mcp-Session-Id", sid)
	if d, err := http.DefaultClient.Do(req); err != nil || d.StatusCode != 200 {
		t.Fatalf("DELETE: %v", err)
	}
	if r := post(t, url, sid, `{"jsonrpc":"2.0","id":3,"method":"emit"}`); r.StatusCode != http.StatusNotFound {
		t.Fatalf("after DELETE: %d", r.StatusCode)
	}
}

// TestServerIdle: with IdleTimeout, Idle closes when no session was open
// that long; a session without requests or streams expires.
func TestServerIdle(t *testing.T) {
	// The session's expiry is awaited by its log line: the idle clock
	// starts at New, so on a loaded machine Idle may close before the
	// initialize arrives, and then the session has not expired yet.
	ended := make(chan struct{}, 1)
	logf := func(format string, args ...any) {
		if strings.Contains(fmt.Sprintf(format, args...), "neither a request nor an open stream") {
			ended <- struct{}{}
		}
	}
	srv := New(Options{Run: fakeRelay, IdleTimeout: 20 * time.Millisecond, SessionIdle: 20 * time.Millisecond, Logf: logf})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	resp := post(t, hs.URL+"/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	resp.Body.Close()
	for _, c := range []<-chan struct{}{ended, srv.Idle()} {
		select {
		case <-c:
		case <-time.After(10 * time.Second):
			t.Fatal("the session never expired or the server never went idle")
		}
	}
	if r := post(t, hs.URL+"/mcp", resp.Header.Get("Mcp-Session-Id"), `{"jsonrpc":"2.0","id":2,"method":"x"}`); r.StatusCode != http.StatusNotFound {
		t.Fatalf("expired session: %d", r.StatusCode)
	}
	srv.Shutdown(context.Background())
}
