package httpagent

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// childEnv makes the test binary serve as TestSlowClientsCannotLockOut's
// proxy: a Server at a lowered descriptor limit.
const childEnv = "HTTPAGENT_TEST_SLOW_CHILD"

// childSlots is how many descriptors the child has beyond those open when
// it starts serving: that many connections at once.
const childSlots = 6

// childTimeout is the child's header, body and keep-alive timeout.
const childTimeout = 150 * time.Millisecond

func TestMain(m *testing.M) {
	if os.Getenv(childEnv) != "" {
		serveLimitedChild()
		return
	}
	os.Exit(m.Run())
}

// serveLimitedChild listens on loopback, lowers RLIMIT_NOFILE (soft and
// hard, so nothing can raise it again) to the descriptors open now plus
// childSlots, prints its address and serves until stdin closes.
func serveLimitedChild() {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	n := uint64(len(fds) - 1 + childSlots) // -1: ReadDir's own descriptor
	if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &syscall.Rlimit{Cur: n, Max: n}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	opts := Options{Run: fakeRelay}
	if m := os.Getenv(childEnv); m == "lowered" || m == "post-only" {
		opts.HeaderTimeout, opts.BodyTimeout, opts.KeepAliveTimeout = childTimeout, childTimeout, childTimeout
	}
	srv := New(opts)
	hs := srv.HTTPServer(log.New(io.Discard, "", 0))
	if os.Getenv(childEnv) == "none" { // the server as it was before the timeouts
		hs.ReadHeaderTimeout, hs.IdleTimeout = 30*time.Second, 0
		srv.opts.BodyTimeout = time.Hour
	}
	if os.Getenv(childEnv) == "post-only" { // the body timeout on POST bodies only
		hs.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Method != http.MethodPost {
				http.NotFound(w, r)
				return
			}
			srv.ServeHTTP(w, r)
		})
	}
	fmt.Println(ln.Addr())
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); os.Exit(0) }()
	_ = hs.Serve(ln)
}

// TestSlowClientsCannotLockOut: a proxy process whose descriptor limit
// leaves it 6 connections is held by 40 slow clients — 10 kept-alive
// connections left idle after a request, 10 that never finish their
// header, 10 whose POST body never finishes, 10 whose body of a request
// answered at once (404) never finishes. With the header, body and
// keep-alive timeouts (lowered to 150 ms here; 10 s, 60 s, 120 s by
// default) they are closed in turn and the agent's initialize, queued
// behind them, is answered. Without them ("none": the server as it was,
// with only a 30 s header timeout) the idle and slow-body clients hold
// every descriptor for good and the agent is locked out.
func TestSlowClientsCannotLockOut(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts descriptors in /proc/self/fd")
	}
	mode := "lowered"
	if m := os.Getenv("HTTPAGENT_TEST_SLOW_MODE"); m != "" {
		mode = m // "none" (no timeouts) and "post-only" (no body deadline outside POST) show the lock-out
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childEnv+"="+mode)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); _ = cmd.Wait() }()
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("child: %v", err)
	}
	addr := strings.TrimSpace(line)

	var slow []net.Conn
	defer func() {
		for _, c := range slow {
			c.Close()
		}
	}()
	dial := func(send string) {
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := io.WriteString(c, send); err != nil {
			t.Fatal(err)
		}
		slow = append(slow, c)
	}
	for range 10 {
		dial("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n") // answered 404, then kept alive, idle
		dial("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n")
		dial("POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
		// Answered 404 at once; net/http then drains the body that never comes.
		dial("DELETE /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 1000\r\n\r\n{")
	}

	start := time.Now()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second) // a bound, not a synchronisation
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/mcp", strings.NewReader(initBody))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("the agent's initialize behind 40 slow clients at a 6-connection descriptor limit: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Mcp-Session-Id") == "" || !strings.Contains(string(b), `"initialize"`) {
		t.Fatalf("initialize: %d %q", resp.StatusCode, b)
	}
	t.Logf("the agent got in after %s", time.Since(start).Round(time.Millisecond))

	// The first slow-body client was answered 408, and its connection closed.
	_ = slow[2].SetReadDeadline(time.Now().Add(10 * time.Second)) // a bound
	br := bufio.NewReader(slow[2])
	r, err := http.ReadResponse(br, nil)
	if err != nil || r.StatusCode != http.StatusRequestTimeout || !r.Close {
		t.Fatalf("slow body: %v %v, want 408 with Connection: close", r, err)
	}
	_, _ = io.Copy(io.Discard, r.Body)
	if _, err := br.ReadByte(); err != io.EOF {
		t.Errorf("after the 408 the connection stayed open: %v", err)
	}
}

// TestHTTPServerTimeouts: the defaults the proxy serves with.
func TestHTTPServerTimeouts(t *testing.T) {
	srv := New(Options{})
	hs := srv.HTTPServer(nil)
	if hs.ReadHeaderTimeout != 10*time.Second || hs.IdleTimeout != 120*time.Second || srv.opts.BodyTimeout != 60*time.Second ||
		hs.ReadTimeout != 0 || hs.WriteTimeout != 0 {
		t.Fatalf("header %s, keep-alive %s, body %s, read %s, write %s", hs.ReadHeaderTimeout, hs.IdleTimeout, srv.opts.BodyTimeout, hs.ReadTimeout, hs.WriteTimeout)
	}
}

// TestGetWithBodyRefused: a GET stream has no time limit, so a GET that
// declares a body (which the server would drain after the stream) is 400
// and opens no stream.
func TestGetWithBodyRefused(t *testing.T) {
	srv := New(Options{Run: fakeRelay})
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Shutdown(context.Background())
	resp := post(t, hs.URL+"/mcp", "", initBody)
	resp.Body.Close()
	req, _ := http.NewRequest(http.MethodGet, hs.URL+"/mcp", strings.NewReader("x"))
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", resp.Header.Get("Mcp-Session-Id"))
	g, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(g.Body)
	g.Body.Close()
	if g.StatusCode != http.StatusBadRequest || !strings.Contains(string(b), "a GET has no body") {
		t.Fatalf("GET with a body: %d %q", g.StatusCode, b)
	}
}
