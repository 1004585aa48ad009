package e2e

import (
	"bytes"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestHTTPAgentSideLimitsE2E: the built proxy with --max-sessions 1
// refuses a second initialize with 503 and one stderr line while the first
// session keeps working, and refuses a request for a Host that is not a
// loopback name with 403 (DNS-rebinding protection).
func TestHTTPAgentSideLimitsE2E(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--max-sessions", "1")
	first := newRawSession(t, p.url)
	first.initialize()

	second := newRawSession(t, p.url)
	resp := second.post(rpcRequest("1", "initialize", initializeParams))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusServiceUnavailable || !strings.Contains(string(b), "at most 1 sessions at once (--max-sessions)") {
		t.Fatalf("second initialize: %d %q, want 503", resp.StatusCode, b)
	}
	p.stderr.waitFor(t, "refused a new session (503): 1 sessions are open")

	resp = first.post(rpcRequest("2", "tools/list", "{}"))
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "create_booking") {
		t.Fatalf("the open session: %d %q", resp.StatusCode, b)
	}

	req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(rpcRequest("3", "tools/list", "{}")))
	req.Host = "attacker.example:80"
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Mcp-Session-Id", first.id)
	resp, err := first.hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || strings.TrimSpace(string(b)) != `Forbidden: invalid Host header "attacker.example:80"` {
		t.Fatalf("rebinding Host: %d %q, want 403", resp.StatusCode, b)
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
}

// childCount is the number of live (not zombie) processes whose parent is
// pid, read from /proc.
func childCount(t *testing.T, pid int) int {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Skipf("no /proc: %v", err)
	}
	n := 0
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// pid (comm) state ppid …; comm may hold spaces and parentheses.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			n++
		}
	}
	return n
}

// TestHTTPMaxSessionsBoundsUpstreamsE2E: 10 initialize requests to a proxy
// with --max-sessions 4 and a command upstream: 4 sessions, 6 answers 503,
// and at most 4 upstream processes alive (one per session, or one shared).
func TestHTTPMaxSessionsBoundsUpstreamsE2E(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--max-sessions", "4")
	refused := 0
	for range 10 {
		s := newRawSession(t, p.url)
		resp := s.post(rpcRequest("1", "initialize", initializeParams))
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		switch resp.StatusCode {
		case http.StatusOK:
		case http.StatusServiceUnavailable:
			refused++
		default:
			t.Fatalf("initialize: %d", resp.StatusCode)
		}
	}
	if refused != 6 {
		t.Errorf("%d initialize requests refused, want 6", refused)
	}
	if n := childCount(t, p.cmd.Process.Pid); n > 4 || n < 1 {
		t.Errorf("%d upstream processes for 4 sessions", n)
	}
	if n := strings.Count(p.stderr.String(), "refused a new session (503)"); n != 1 {
		t.Errorf("%d refusal lines, want 1; stderr:\n%s", n, p.stderr.String())
	}
	p.stop(syscall.SIGTERM)
}

// TestHTTPSessionIdleE2E: with --session-idle 200ms a session left without
// a request or stream ends (one stderr line) and its id is 404 afterwards.
func TestHTTPSessionIdleE2E(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--session-idle", "200ms")
	s := newRawSession(t, p.url)
	s.initialize()
	p.stderr.waitFor(t, "ended: neither a request nor an open stream for 200ms")
	resp := s.post(rpcRequest("2", "tools/list", "{}"))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("after expiry: %d, want 404", resp.StatusCode)
	}
	p.stop(syscall.SIGTERM)
}
