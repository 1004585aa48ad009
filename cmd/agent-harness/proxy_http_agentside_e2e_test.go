package main

import (
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// TestHTTPAgentSideLimitsE2E: the built proxy with --max-sessions 1
// refuses a second initialize with 503 and one stderr line while the first
// session keeps working, and refuses a request for a Host that is not a
// loopback name with 403 (DNS-rebinding protection).
func TestHTTPAgentSideLimitsE2E(t *testing.T) {
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
