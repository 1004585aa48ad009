package httpupstream

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// TestInitializedNotificationGatesLaterMessages: a message written after
// notifications/initialized is POSTed only once the upstream accepted the
// notification, so the upstream sees the lifecycle's order whatever the
// goroutines' scheduling (an upstream counting its session's POSTs saw a
// tools/call before the notification on a loaded machine). The upstream
// holds the notification; a tools/call arriving meanwhile is the bug.
func TestInitializedNotificationGatesLaterMessages(t *testing.T) {
	var mu sync.Mutex
	var order []string
	callArrived := make(chan struct{}, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		switch {
		case bytes.Contains(body, []byte(`"notifications/initialized"`)):
			select {
			case <-callArrived: // the bug: the call overtook the notification
				mu.Lock()
				order = append(order, "call before initialized was accepted")
				mu.Unlock()
			case <-time.After(300 * time.Millisecond): // bounded: nothing overtook it
			}
			mu.Lock()
			order = append(order, "initialized")
			mu.Unlock()
			w.WriteHeader(http.StatusAccepted)
		case bytes.Contains(body, []byte(`"tools/call"`)):
			mu.Lock()
			order = append(order, "call")
			mu.Unlock()
			callArrived <- struct{}{}
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"jsonrpc":"2.0","id":7,"result":{"content":[]}}`)
		default:
			w.WriteHeader(http.StatusAccepted)
		}
	}))
	defer srv.Close()
	c := New(Options{URL: srv.URL + "/mcp"})
	t.Cleanup(func() { _ = c.Close() })
	if err := c.WriteMessage([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}` + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteMessage([]byte(callMsg)); err != nil {
		t.Fatal(err)
	}
	got := newMsgReader(c).next(1, 10*time.Second)
	if len(got) != 1 || !bytes.Contains([]byte(got[0]), []byte(`"id":7`)) {
		t.Fatalf("answer: %q", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(order) != 2 || order[0] != "initialized" || order[1] != "call" {
		t.Errorf("upstream saw %q, want the notification accepted before the call", order)
	}
}
