package httpagent

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay"
)

func TestHostAllowed(t *testing.T) {
	s := New(Options{AllowOrigins: []string{"https://App.example.com:8443"}})
	for host, want := range map[string]bool{
		"localhost":            true,
		"LocalHost:3000":       true,
		"127.0.0.1:8080":       true,
		"127.0.0.1":            true,
		"[::1]:9":              true,
		"[::1]":                true,
		"app.example.com":      true, // the host of an allowed origin, any port
		"app.example.com:1234": true,
		"":                     false,
		"evil.example":         false,
		"evil.example:8080":    false,
		"localhost.evil.com":   false,
		"localhost.":           false,
		"10.0.0.1:80":          false,
		"[fe80::1%25eth0]:1":   false,
		"0.0.0.0:80":           false,
		"example.com":          false,
	} {
		if got := s.hostAllowed(host); got != want {
			t.Errorf("hostAllowed(%q) = %v, want %v", host, got, want)
		}
	}
	if !New(Options{AllowAnyHost: true}).hostAllowed("evil.example:80") {
		t.Error("AllowAnyHost refused a host")
	}
}

// TestHostRefusedOnTheWire: a request whose Host is not a loopback name
// (a DNS-rebinding page, which sends no Origin for a same-origin request)
// gets 403 as from the go-sdk's handler, one stderr line, and nothing
// reaches the relay: no session starts. --listen-allow-remote serves it.
func TestHostRefusedOnTheWire(t *testing.T) {
	for _, tc := range []struct {
		name     string
		opts     Options
		host     string
		want     int
		wantLine string
	}{
		{name: "rebinding name", host: "attacker.example:8080", want: http.StatusForbidden,
			wantLine: `refused a request for Host "attacker.example:8080" (403): not a loopback name`},
		{name: "allowed origin's host", opts: Options{AllowOrigins: []string{"https://app.example.com"}}, host: "app.example.com", want: http.StatusOK},
		{name: "allow remote", opts: Options{AllowAnyHost: true}, host: "attacker.example:8080", want: http.StatusOK},
		{name: "loopback", host: "localhost:1", want: http.StatusOK},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var started atomic.Int32
			var mu sync.Mutex
			var lines []string
			opts := tc.opts
			opts.Run = func(ctx context.Context, c relay.Conn, id string) error {
				started.Add(1)
				return fakeRelay(ctx, c, id)
			}
			opts.Logf = func(f string, a ...any) {
				mu.Lock()
				lines = append(lines, fmtLine(f, a...))
				mu.Unlock()
			}
			srv := New(opts)
			hs := httptest.NewServer(srv)
			defer hs.Close()
			defer srv.Shutdown(context.Background())
			req, _ := http.NewRequest(http.MethodPost, hs.URL+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`))
			req.Host = tc.host
			req.Header.Set("Content-Type", "application/json")
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.want {
				t.Fatalf("status %d (%s), want %d", resp.StatusCode, b, tc.want)
			}
			if tc.want != http.StatusForbidden {
				return
			}
			if got := strings.TrimSpace(string(b)); got != `Forbidden: invalid Host header "attacker.example:8080"` {
				t.Errorf("body %q", got)
			}
			if n := started.Load(); n != 0 {
				t.Errorf("%d sessions started for a refused Host", n)
			}
			mu.Lock()
			defer mu.Unlock()
			if len(lines) != 1 || !strings.HasPrefix(lines[0], tc.wantLine) {
				t.Errorf("stderr lines %q, want one starting %q", lines, tc.wantLine)
			}
		})
	}
}

func fmtLine(f string, a ...any) string { return fmt.Sprintf(f, a...) }
