package httpagent

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestClosedStreamIsCancel (behaviour §2.6): a 2026-07-28 client that
// closes a request's stream before the answer cancels it; the relay gets
// the notifications/cancelled the close stands for. A 2025-11-25 client's
// disconnect is no cancellation (that revision says so): nothing reaches
// the relay.
func TestClosedStreamIsCancel(t *testing.T) {
	for _, tc := range []struct {
		name   string
		header string // MCP-Protocol-Version
		meta   string // params._meta
		want   string // the message after the request
		none   bool   // no message: the disconnect is no cancellation
	}{
		{"2026 header", "2026-07-28", "", `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the client closed the request's stream"}}`, false},
		{"2026 in _meta", "", `,"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"the client closed the request's stream"}}`, false},
		{"2025-11-25", "2025-11-25", "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan string, 4)
			run := func(ctx context.Context, c relay.Conn, _ string) error {
				for {
					m, err := c.ReadMessage()
					if err != nil {
						return nil
					}
					got <- strings.TrimSpace(string(m))
				}
			}
			postDone := make(chan struct{}, 4)
			testHookPostDone = func() { postDone <- struct{}{} }
			defer func() { testHookPostDone = nil }()
			srv := New(Options{Run: run})
			hs := httptest.NewServer(srv)
			defer hs.Close()
			ctx, cancel := context.WithCancel(context.Background())
			body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"create_booking","arguments":{}` + tc.meta + `}}`
			req, _ := http.NewRequestWithContext(ctx, http.MethodPost, hs.URL+"/mcp", strings.NewReader(body))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			if tc.header != "" {
				req.Header.Set("MCP-Protocol-Version", tc.header)
			}
			done := make(chan struct{})
			go func() {
				defer close(done)
				if resp, err := http.DefaultClient.Do(req); err == nil {
					resp.Body.Close()
				}
			}()
			if m := <-got; m != body {
				t.Fatalf("the relay got %s, want the request", m)
			}
			cancel() // the client closes the request's stream
			<-done
			<-postDone // the handler has pushed what it pushes
			// A later message: the relay gets messages in order, so the
			// next one is the cancellation if the close stood for one.
			marker := `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"m","progress":1}}`
			post(t, hs.URL+"/mcp", "", marker).Body.Close()
			want := tc.want
			if tc.none {
				want = marker
			}
			if m := <-got; m != want {
				t.Errorf("the relay got %s\nwant %s", m, want)
			}
		})
	}
}
