package httpagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestSessionIDNeverLogged (issue 17 item 10): a session that ends with an
// error gets one stderr line, which never shows its Mcp-Session-Id (it
// authorises use of the session; the report never shows it either).
func TestSessionIDNeverLogged(t *testing.T) {
	var mu sync.Mutex
	var lines []string
	ended := make(chan struct{})
	srv := New(Options{
		Run: func(ctx context.Context, c relay.Conn, id string) error {
			defer close(ended)
			_ = fakeRelayOnce(c)
			return errors.New("the upstream did not start")
		},
		Logf: func(format string, args ...any) {
			mu.Lock()
			defer mu.Unlock()
			lines = append(lines, fmt.Sprintf(format, args...))
		},
	})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	resp := post(t, hs.URL+"/mcp", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	sid := resp.Header.Get("Mcp-Session-Id")
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if sid == "" {
		t.Fatal("no session id")
	}
	<-ended
	srv.Shutdown(context.Background())
	mu.Lock()
	defer mu.Unlock()
	found := false
	for _, l := range lines {
		if strings.Contains(l, sid) || strings.Contains(l, sid[:8]) {
			t.Errorf("line %q shows the session id %s", l, sid)
		}
		found = found || strings.Contains(l, "ended: the upstream did not start")
	}
	if !found {
		t.Errorf("lines %q, want the session's end with its error", lines)
	}
}

// fakeRelayOnce answers the first request (initialize) and returns.
func fakeRelayOnce(c relay.Conn) error {
	m, err := c.ReadMessage()
	if err != nil {
		return err
	}
	var req struct {
		ID json.RawMessage `json:"id"`
	}
	_ = json.Unmarshal(m, &req)
	return c.WriteMessage(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`+"\n", req.ID))
}
