package relay

import (
	"bytes"
	"testing"
	"time"
)

// readNone fails if session c receives a message within d.
func readNone(t *testing.T, c Conn, d time.Duration, what string) {
	t.Helper()
	ch := make(chan []byte, 1)
	go func() {
		b, err := c.ReadMessage()
		if err == nil {
			ch <- b
		}
	}()
	select {
	case b := <-ch:
		t.Errorf("%s: session received %s, want nothing", what, bytes.TrimSpace(b))
	case <-time.After(d):
	}
}

// TestRed3LateProgressGoesToAnotherSession: s1's call with progress token
// "p" has been answered; a late progress notification of the process for
// that call (the proxy's token agent-harness/p2) is no longer routed to s1
// but handed to whichever session is the target — s2, which has a call of
// its own in flight — carrying the proxy's internal token.
func TestRed3LateProgressGoesToAnotherSession(t *testing.T) {
	f, u, a, b := sharedPair(t)
	defer u.Stop()
	write(t, a, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}`)
	wantLine(t, "s1's call", f.next(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"agent-harness/p2"}}}`)
	f.say(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	read(t, a)
	write(t, b, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"agent-harness/p2","progress":2}}`)
	readNone(t, b, 300*time.Millisecond, "s1's late progress")
}

// TestRed3InitializedAfterFailedInitialize: s1's initialize fails, s1 sends
// notifications/initialized anyway; s2's initialize then succeeds, but the
// process never gets notifications/initialized after its successful
// handshake (it was spent on the failed one).
func TestRed3InitializedAfterFailedInitialize(t *testing.T) {
	f := newFakeShared(t)
	u, err := StartShared(Options{Upstream: f.rw, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b := u.Session("s1"), u.Session("s2")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`)
	read(t, a)
	write(t, a, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if l := f.next(); l != `{"jsonrpc":"2.0","method":"notifications/initialized"}` {
		t.Fatalf("got %s", l)
	}
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"v"}}`)
	read(t, b)
	write(t, b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	select {
	case l := <-f.lines:
		wantLine(t, "initialized after the successful handshake", l, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	case <-time.After(500 * time.Millisecond):
		t.Errorf("the shared process never got notifications/initialized after its successful initialize")
	}
}

// TestRed3LaterSessionGetsFirstSessionsProtocolVersion: s1 negotiated
// 2025-06-18; s2 asks for 2025-03-26 and is answered, from the cache, with
// 2025-06-18 — a version it did not ask for and may not speak (MCP: a
// client that does not support the version in the answer disconnects), and
// its relay then shapes its calls for 2025-06-18. Nothing is logged.
// Expected: s2 gets its own version negotiated (or at least one stderr
// line, as for capabilities the first session lacked).
func TestRed3LaterSessionGetsFirstSessionsProtocolVersion(t *testing.T) {
	f := newFakeShared(t)
	var stderr bytes.Buffer
	mu := syncWriter{w: &stderr}
	u, err := StartShared(Options{Upstream: f.rw, Stderr: &mu})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b := u.Session("s1"), u.Session("s2")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`)
	read(t, a)
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
	got := read(t, b)
	if bytes.Contains([]byte(got), []byte(`"2025-06-18"`)) && mu.String() == "" {
		t.Errorf("s2 asked for 2025-03-26 and got %s, with nothing on stderr", got)
	}
}
