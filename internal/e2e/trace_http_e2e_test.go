package e2e

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPTraceRejudged (issue 17): the trace of a --listen run with two
// sessions — an F1 ghost write in the first, its re-send in the second —
// passes the reader's checks (sessions opened before use, each call once)
// and re-judges to the live report: FAIL, transport http (the header used
// to record no transport, so the re-judged report said stdio).
func TestHTTPTraceRejudged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tracePath := filepath.Join(t.TempDir(), "run.trace")
	p := startHTTPProxy(t, "--scenario", "F1", "--audit-tools", "off", "--trace", tracePath)
	ctx, cancel := context.WithTimeout(context.Background(), sessionWait)
	defer cancel()
	args := map[string]any{"room": "12", "date": "2026-11-03"}
	for i := range 2 {
		client := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "1"}, nil)
		cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.url, MaxRetries: -1}, nil)
		if err != nil {
			t.Fatalf("connect %d: %v\n%s", i, err, p.stderr.String())
		}
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: args}); err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		cs.Close()
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr.String())
	}
	live, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	r, offline := rejudge(t, tracePath)
	if r.code != exitVerdictFail || r.stderr != "" {
		t.Fatalf("judge exit %d, stderr %q; want 1 and nothing", r.code, r.stderr)
	}
	if a, b := withoutStatus(t, live), withoutStatus(t, offline); a != b {
		t.Errorf("re-judged report differs from the live one\nlive:    %s\noffline: %s", a, b)
	}
	var h httpReport
	p.report = filepath.Join(t.TempDir(), "offline.json")
	os.WriteFile(p.report, offline, 0o644)
	if h = p.readHTTPReport(); h.Transport.Agent != "http" || h.Transport.Upstream != "stdio" {
		t.Errorf("re-judged transport %+v, want http/stdio", h.Transport)
	}
}
