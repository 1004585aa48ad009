package httpagent

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// heldRelay answers initialize at once, "hold" requests when the test
// releases their id (then reports the write done), and "notify" with a
// list_changed notification.
type heldRelay struct {
	got     chan string // ids of hold requests read
	release chan string // ids to answer
	written chan string // ids answered
}

func (h *heldRelay) run(_ context.Context, c relay.Conn, _ string) error {
	go func() {
		for id := range h.release {
			_ = c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{"held":true}}`+"\n", id))
			h.written <- id
		}
	}()
	for {
		m, err := c.ReadMessage()
		if err != nil {
			return nil
		}
		var req struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(m, &req)
		switch req.Method {
		case "hold":
			h.got <- string(req.ID)
		case "notify":
			_ = c.WriteMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` + "\n"))
		default:
			if req.ID != nil {
				_ = c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", req.ID))
			}
		}
	}
}

// TestAnswerOfAGonePOSTIsDropped: the answer to a request whose POST the
// client closed goes to no other stream — neither the open GET stream nor
// another waiting POST (MCP 2025-11-25 allows an answer only on its own
// request's stream) — and one WARNING line says so. (The judge records
// answers before they are handed to the HTTP side.)
func TestAnswerOfAGonePOSTIsDropped(t *testing.T) {
	postClosed := make(chan struct{}, 8)
	testHookPostClosed = func() { postClosed <- struct{}{} }
	defer func() { testHookPostClosed = nil }()
	h := &heldRelay{got: make(chan string, 4), release: make(chan string), written: make(chan string)}
	var log logLines
	srv := New(Options{Run: h.run, Logf: log.logf})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	defer close(h.release)
	url := hs.URL + "/mcp"
	resp := post(t, url, "", initBody)
	resp.Body.Close()
	sid := resp.Header.Get("Mcp-Session-Id")
	<-postClosed

	greq, _ := http.NewRequest(http.MethodGet, url, nil)
	greq.Header.Set("Accept", "text/event-stream")
	greq.Header.Set("Mcp-Session-Id", sid)
	g, err := http.DefaultClient.Do(greq)
	if err != nil || g.StatusCode != http.StatusOK {
		t.Fatalf("GET: %v %v", g, err)
	}
	defer g.Body.Close()

	// Request 5's POST goes away while the upstream works on it.
	ctx5, cancel5 := context.WithCancel(context.Background())
	req5, _ := http.NewRequestWithContext(ctx5, http.MethodPost, url, strings.NewReader(`{"jsonrpc":"2.0","id":5,"method":"hold"}`))
	req5.Header.Set("Content-Type", "application/json")
	req5.Header.Set("Mcp-Session-Id", sid)
	go func() {
		if r, err := http.DefaultClient.Do(req5); err == nil {
			r.Body.Close()
		}
	}()
	if id := <-h.got; id != "5" {
		t.Fatalf("held %s", id)
	}
	// Request 6 waits on its own POST.
	six := make(chan *http.Response, 1)
	go func() { six <- post(t, url, sid, `{"jsonrpc":"2.0","id":6,"method":"hold"}`) }()
	if id := <-h.got; id != "6" {
		t.Fatalf("held %s", id)
	}
	cancel5()
	<-postClosed
	h.release <- "5"
	<-h.written

	h.release <- "6"
	r6 := <-six
	b, _ := io.ReadAll(r6.Body)
	r6.Body.Close()
	if r6.Header.Get("Content-Type") != "application/json" || strings.TrimSpace(string(b)) != `{"jsonrpc":"2.0","id":6,"result":{"held":true}}` {
		t.Fatalf("request 6's POST got %s %q: want its own answer alone, as JSON", r6.Header.Get("Content-Type"), b)
	}
	r := post(t, url, sid, `{"jsonrpc":"2.0","method":"notify"}`)
	r.Body.Close()
	_, data := events(t, g.Body, 1)
	if len(data) != 1 || !strings.Contains(data[0], "list_changed") {
		t.Fatalf("the GET stream's first event %q: want the notification, not request 5's answer", data)
	}
	if n := log.count("WARNING: the answer to request 5 was not delivered: the client closed the POST that carried it"); n != 1 {
		t.Fatalf("lines %q", log.lines)
	}
}
