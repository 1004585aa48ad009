package relay

import (
	"bufio"
	"bytes"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeShared is an in-process upstream the test plays: it reads what the
// shared side sends (next) and writes what the upstream says (say).
type fakeShared struct {
	t     *testing.T
	lines chan string
	out   *io.PipeWriter
	rw    struct {
		io.Reader
		io.Writer
		io.Closer
	}
}

func newFakeShared(t *testing.T) *fakeShared {
	f := &fakeShared{t: t, lines: make(chan string, 100)}
	toUpR, toUpW := io.Pipe()
	fromUpR, fromUpW := io.Pipe()
	f.out = fromUpW
	f.rw.Reader, f.rw.Writer, f.rw.Closer = fromUpR, toUpW, toUpW
	go func() {
		br := bufio.NewReader(toUpR)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				f.lines <- strings.TrimSpace(line)
			}
			if err != nil {
				close(f.lines)
				return
			}
		}
	}()
	return f
}

// next is the next message the upstream received.
func (f *fakeShared) next() string {
	f.t.Helper()
	select {
	case l := <-f.lines:
		return l
	case <-time.After(10 * time.Second): // a safety net, not a synchronisation
		f.t.Fatal("the upstream received nothing")
		return ""
	}
}

func (f *fakeShared) say(line string) {
	f.t.Helper()
	if _, err := io.WriteString(f.out, line+"\n"); err != nil {
		f.t.Fatal(err)
	}
}

// read is the next message of session c.
func read(t *testing.T, c Conn) string {
	t.Helper()
	type res struct {
		b   []byte
		err error
	}
	ch := make(chan res, 1)
	go func() { b, err := c.ReadMessage(); ch <- res{b, err} }()
	select {
	case r := <-ch:
		if r.err != nil {
			t.Fatalf("read: %v", r.err)
		}
		return strings.TrimSpace(string(r.b))
	case <-time.After(10 * time.Second):
		t.Fatal("the session received nothing")
		return ""
	}
}

func write(t *testing.T, c Conn, msg string) {
	t.Helper()
	if err := c.WriteMessage([]byte(msg + "\n")); err != nil {
		t.Fatalf("write %s: %v", msg, err)
	}
}

func wantLine(t *testing.T, what, got, want string) {
	t.Helper()
	if got != want {
		t.Errorf("%s:\n got %s\nwant %s", what, got, want)
	}
}

// TestSharedUpstreamRouting: two sessions over one upstream (behaviour
// §8.3). The upstream sees one handshake and ids, progress tokens and
// cancellations of the proxy's own; answers, progress and server requests
// find their session; list_changed reaches both; a later session's extra
// client capability is one stderr line.
func TestSharedUpstreamRouting(t *testing.T) {
	f := newFakeShared(t)
	var stderr bytes.Buffer
	var mu syncWriter
	mu.w = &stderr
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Stderr: &mu})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b := u.Session("s1"), u.Session("s2")

	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"roots":{}}}}`)
	wantLine(t, "first initialize at the upstream", f.next(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"capabilities":{"roots":{}}}}`)
	f.say(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`)
	wantLine(t, "s1's initialize answer", read(t, a), `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`)
	write(t, a, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	wantLine(t, "initialized", f.next(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)

	write(t, b, `{"jsonrpc":"2.0","id":"x","method":"initialize","params":{"capabilities":{"roots":{},"sampling":{}}}}`)
	wantLine(t, "s2's initialize, answered from the first", read(t, b), `{"jsonrpc":"2.0","id":"x","result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`)
	write(t, b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if got := mu.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "session s2 declares client capabilities sampling") {
		t.Errorf("stderr = %q, want one line naming s2 and sampling", got)
	}

	// The same id in both sessions, each with progress token "p".
	write(t, a, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}`)
	wantLine(t, "s1's call (s2's initialize and initialized never reached the upstream)", f.next(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"agent-harness/p2"}}}`)
	write(t, b, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}`)
	wantLine(t, "s2's call", f.next(), `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"agent-harness/p3"}}}`)

	f.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"agent-harness/p2","progress":1}}`)
	wantLine(t, "s1's progress", read(t, a), `{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"p","progress":1}}`)
	f.say(`{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}}`)
	wantLine(t, "a server request goes to the newest call's session", read(t, b), `{"jsonrpc":"2.0","id":"srv-1","method":"sampling/createMessage","params":{}}`)
	write(t, a, `{"jsonrpc":"2.0","id":"srv-1","result":{}}`) // not s1's to answer: dropped
	write(t, b, `{"jsonrpc":"2.0","id":"srv-1","result":{"ok":true}}`)
	wantLine(t, "s2's answer to the server", f.next(), `{"jsonrpc":"2.0","id":"srv-1","result":{"ok":true}}`)

	write(t, a, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7,"reason":"r"}}`)
	wantLine(t, "s1's cancellation names the upstream's id", f.next(), `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"r"}}`)
	f.say(`{"jsonrpc":"2.0","id":3,"result":{"n":3}}`)
	wantLine(t, "s2's answer", read(t, b), `{"jsonrpc":"2.0","id":7,"result":{"n":3}}`)
	f.say(`{"jsonrpc":"2.0","id":2,"result":{"n":2}}`)
	wantLine(t, "s1's answer", read(t, a), `{"jsonrpc":"2.0","id":7,"result":{"n":2}}`)

	f.say(`{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	wantLine(t, "list_changed to s1", read(t, a), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	wantLine(t, "list_changed to s2", read(t, b), `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}`)
	f.say(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`)
	wantLine(t, "another notification goes to the newest session", read(t, b), `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"hi"}}`)

	// A session that ended no longer gets anything; the process stays, and
	// its request to the session that ended gets an error.
	f.say(`{"jsonrpc":"2.0","id":"srv-2","method":"roots/list","params":{}}`)
	wantLine(t, "a server request with no call in flight goes to the newest session", read(t, b), `{"jsonrpc":"2.0","id":"srv-2","method":"roots/list","params":{}}`)
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.ReadMessage(); err != io.EOF {
		t.Errorf("read after Close: %v, want io.EOF", err)
	}
	wantLine(t, "the unanswered server request", f.next(), `{"jsonrpc":"2.0","id":"srv-2","error":{"code":-32603,"message":"agent-harness: the agent session this request went to has ended"}}`)
	f.say(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
	wantLine(t, "after s2 ended, to s1", read(t, a), `{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)

	// The upstream gone: the session's reads end with an error.
	f.out.Close()
	if _, err := a.ReadMessage(); err == nil || err == io.EOF {
		t.Errorf("read after the upstream closed: %v, want an error that is not EOF", err)
	}
}

// TestSharedUpstreamInitializeWaits: a second initialize that arrives while
// the first is being answered waits for it and never reaches the upstream;
// when the first fails, the next one is forwarded.
func TestSharedUpstreamInitializeWaits(t *testing.T) {
	f := newFakeShared(t)
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b, c := u.Session("s1"), u.Session("s2"), u.Session("s3")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	wantLine(t, "s1's initialize", f.next(), `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	write(t, c, `{"jsonrpc":"2.0","id":5,"method":"initialize","params":{}}`)
	f.say(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`)
	wantLine(t, "s1's failed initialize", read(t, a), `{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`)
	wantLine(t, "s2's initialize forwarded after the failure", f.next(), `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`)
	f.say(`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"v"}}`)
	wantLine(t, "s2's answer", read(t, b), `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"v"}}`)
	wantLine(t, "s3's answer, from s2's", read(t, c), `{"jsonrpc":"2.0","id":5,"result":{"protocolVersion":"v"}}`)
}

// syncWriter is a bytes.Buffer safe for concurrent writers.
type syncWriter struct {
	mu sync.Mutex
	w  *bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.String()
}

// sharedPair is a shared upstream with two sessions, s1 and s2, past
// their handshakes.
func sharedPair(t *testing.T) (*fakeShared, *SharedUpstream, Conn, Conn) {
	f := newFakeShared(t)
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	a, b := u.Session("s1"), u.Session("s2")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`)
	read(t, a)
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	read(t, b)
	return f, u, a, b
}

// TestSharedEndedSessionsLateAnswerNotCrossing: s1 ends while its call is in
// flight; the process's late answer never reaches another session (s2 has
// a call with the same id in flight): s2 gets its own answer first.
func TestSharedEndedSessionsLateAnswerNotCrossing(t *testing.T) {
	f, u, a, b := sharedPair(t)
	defer u.Stop()
	write(t, a, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w"}}`)
	f.next()
	write(t, b, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w"}}`)
	f.next()
	_ = a.Close()
	f.say(`{"jsonrpc":"2.0","id":2,"result":{"s1":true}}`)
	f.say(`{"jsonrpc":"2.0","id":3,"result":{"s2":true}}`)
	wantLine(t, "s2's first message: its own answer, not s1's", read(t, b), `{"jsonrpc":"2.0","id":7,"result":{"s2":true}}`)
}

// TestSharedEndedSessionReadsItsCallsLateAnswer: a session that ends with a
// tools/call in flight still reads the process's late answer (with its own
// id), so its pipeline judges the attempt by it (behaviour §8.3); then its
// reads end with io.EOF. Nothing else reaches it after its end.
func TestSharedEndedSessionReadsItsCallsLateAnswer(t *testing.T) {
	f, u, a, _ := sharedPair(t)
	defer u.Stop()
	write(t, a, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w"}}`)
	wantLine(t, "s1's call", f.next(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w"}}`)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	f.say(`{"jsonrpc":"2.0","method":"notifications/message","params":{"data":"after"}}`)
	f.say(`{"jsonrpc":"2.0","id":2,"result":{"booked":true}}`)
	wantLine(t, "the late answer, after s1's end", read(t, a), `{"jsonrpc":"2.0","id":7,"result":{"booked":true}}`)
	if _, err := a.ReadMessage(); err != io.EOF {
		t.Errorf("read after the last answer: %v, want io.EOF", err)
	}
}

// TestSharedEndedSessionWaitsAtMostTheCallTimeout: the late answer of an
// ended session's call is waited for at most Options.CallTimeout; then the
// session's reads end (io.EOF), so its relay is not kept forever by a
// process that never answers.
func TestSharedEndedSessionWaitsAtMostTheCallTimeout(t *testing.T) {
	f := newFakeShared(t)
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Quiet: true, CallTimeout: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a := u.Session("s1")
	write(t, a, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w"}}`)
	f.next()
	_ = a.Close()
	if _, err := a.ReadMessage(); err != io.EOF { // returns once the wait ended
		t.Fatalf("read after the call timeout: %v, want io.EOF", err)
	}
}

// TestSharedInitializedOnlyAfterTheSuccessfulInitialize: the process gets
// exactly one notifications/initialized, the one after its successful
// initialize: s1's, sent after its initialize failed, is not forwarded (the
// process would take its handshake as done), and s2's after the successful
// one is.
func TestSharedInitializedOnlyAfterTheSuccessfulInitialize(t *testing.T) {
	f := newFakeShared(t)
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b, c := u.Session("s1"), u.Session("s2"), u.Session("s3")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"no"}}`)
	read(t, a)
	write(t, a, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	wantLine(t, "after the failed handshake's initialized, the next message", f.next(), `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{}}`)
	f.say(`{"jsonrpc":"2.0","id":2,"result":{"protocolVersion":"v"}}`)
	read(t, b)
	write(t, b, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	wantLine(t, "initialized after the successful handshake", f.next(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	read(t, c)
	write(t, c, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	write(t, c, `{"jsonrpc":"2.0","method":"ping","id":9}`)
	wantLine(t, "s3's initialized is not forwarded: the next message", f.next(), `{"jsonrpc":"2.0","method":"ping","id":3}`)
}

// TestSharedInitializedBeforeTheAnswerIsHeld: a notifications/initialized
// sent while the initialize is being answered is forwarded once that
// initialize succeeded.
func TestSharedInitializedBeforeTheAnswerIsHeld(t *testing.T) {
	f := newFakeShared(t)
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a := u.Session("s1")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	f.next()
	write(t, a, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	f.say(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"v"}}`)
	wantLine(t, "the held initialized, after the result", f.next(), `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	read(t, a)
}

// TestSharedLateProgressIsDropped: a progress notification of the process
// for a request no longer open (s1's answered call) belongs to no session:
// it is dropped with one warning, never routed to another session (s2 has
// a call in flight and gets its own answer first); a second one adds no
// warning.
func TestSharedLateProgressIsDropped(t *testing.T) {
	f := newFakeShared(t)
	var stderr bytes.Buffer
	mu := syncWriter{w: &stderr}
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Stderr: &mu})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b := u.Session("s1"), u.Session("s2")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18"}}`)
	read(t, a)
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`)
	read(t, b)
	write(t, a, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}`)
	wantLine(t, "s1's call", f.next(), `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"agent-harness/p2"}}}`)
	f.say(`{"jsonrpc":"2.0","id":2,"result":{}}`)
	read(t, a)
	write(t, b, `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"w","_meta":{"progressToken":"p"}}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"agent-harness/p2","progress":2}}`)
	f.say(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":"agent-harness/p9","progress":1}}`)
	f.say(`{"jsonrpc":"2.0","id":3,"result":{"s2":true}}`)
	wantLine(t, "s2's first message: its own answer, not s1's late progress", read(t, b), `{"jsonrpc":"2.0","id":7,"result":{"s2":true}}`)
	if got := mu.String(); strings.Count(got, "progress notification for a request that is not open") != 1 {
		t.Errorf("stderr = %q, want one warning of a dropped progress notification", got)
	}
}

// TestSharedLaterSessionOtherProtocolVersionWarns: s1 negotiated
// 2025-06-18; s2 asks for 2025-03-26 and is answered, from the shared
// result, with 2025-06-18 (the version the process speaks), and stderr
// says so in one line; s3, asking for the shared version, adds none.
func TestSharedLaterSessionOtherProtocolVersionWarns(t *testing.T) {
	f := newFakeShared(t)
	var stderr bytes.Buffer
	mu := syncWriter{w: &stderr}
	u, err := StartShared(Options{Upstream: IOUpstream{f.rw}, Stderr: &mu})
	if err != nil {
		t.Fatal(err)
	}
	defer u.Stop()
	a, b, c := u.Session("s1"), u.Session("s2"), u.Session("s3")
	write(t, a, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	f.next()
	f.say(`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`)
	read(t, a)
	write(t, b, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{}}}`)
	wantLine(t, "s2's answer", read(t, b), `{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}}}}`)
	write(t, c, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{}}}`)
	read(t, c)
	want := "[agent-harness] WARNING: session s2 asked for protocol version 2025-03-26; the shared upstream was initialised once, with the first session's, and speaks 2025-06-18: the session is answered with 2025-06-18\n"
	if got := mu.String(); got != want {
		t.Errorf("stderr:\n got %q\nwant %q", got, want)
	}
}

// TestSharedServerRequestOfSessionEndingMeanwhileIsAnswered: a session
// that ends just as a request of the process is routed to it (between the
// choice of the session and its queue) leaves no request unanswered: the
// process gets the error of a request whose session ended.
func TestSharedServerRequestOfSessionEndingMeanwhileIsAnswered(t *testing.T) {
	f, u, _, _ := sharedPair(t)
	defer u.Stop()
	testHookServerRequestRouted = func(c *sharedConn) { _ = c.Close() }
	t.Cleanup(func() { testHookServerRequestRouted = nil })
	f.say(`{"jsonrpc":"2.0","id":"srv-1","method":"roots/list","params":{}}`)
	wantLine(t, "the process's request, its session ended meanwhile", f.next(), `{"jsonrpc":"2.0","id":"srv-1","error":{"code":-32603,"message":"agent-harness: the agent session this request went to has ended"}}`)
}
