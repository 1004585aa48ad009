package main

import (
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/harness"
)

func TestParseHTTPFlags(t *testing.T) {
	t.Setenv("AH_TEST_TOKEN", "Bearer secret-123")
	ok := []struct {
		args []string
		want func(o proxyOptions) bool
	}{
		{withBase("--listen", "8080"), func(o proxyOptions) bool { return o.HTTP.Listen == "127.0.0.1:8080" }},
		{withBase("--listen", ":0"), func(o proxyOptions) bool { return o.HTTP.Listen == "127.0.0.1:0" }},
		{withBase("--listen", "[::1]:0"), func(o proxyOptions) bool { return o.HTTP.Listen == "[::1]:0" }},
		{withBase("--listen", "localhost:9"), func(o proxyOptions) bool { return o.HTTP.Listen == "localhost:9" }},
		{withBase("--listen", "0.0.0.0:80", "--listen-allow-remote"), func(o proxyOptions) bool { return o.HTTP.ListenAllowRemote }},
		{withBase("--listen", "0", "--fault-layer", "HTTP", "--ghost-hold", "2s"), func(o proxyOptions) bool {
			return o.HTTP.FaultLayer == "http" && o.HTTP.GhostHold.Seconds() == 2
		}},
		{withBase("--listen=0", "--listen-path=/x/mcp", "--listen-allow-origin", "https://a.example", "--listen-allow-origin", "http://b.example:8080", "--exit-when-idle", "5m"),
			func(o proxyOptions) bool {
				return o.HTTP.ListenPath == "/x/mcp" && len(o.HTTP.ListenAllowOrigins) == 2 && o.HTTP.ExitWhenIdle.Minutes() == 5
			}},
		{withBase("--listen", "0", "--max-sessions", "2", "--session-idle", "90s"), func(o proxyOptions) bool {
			return o.HTTP.MaxSessions == 2 && o.HTTP.SessionIdle == 90*time.Second && harness.SessionIdle(o.HTTP) == 90*time.Second
		}},
		{withBase("--listen", "0", "--exit-when-idle", "5s"), func(o proxyOptions) bool {
			return o.HTTP.MaxSessions == 0 && harness.SessionIdle(o.HTTP) == 5*time.Second // at most --exit-when-idle
		}},
		{withBase("--listen", "0"), func(o proxyOptions) bool { return harness.SessionIdle(o.HTTP) == 10*time.Minute }},
		{[]string{"--upstream-url", "https://mcp.example.com/mcp", "--upstream-header", "X-A: b c", "--upstream-header-env", "Authorization=AH_TEST_TOKEN"},
			func(o proxyOptions) bool {
				return o.HTTP.UpstreamURL == "https://mcp.example.com/mcp" && o.HTTP.UpstreamHeaders.Get("X-A") == "b c" &&
					o.HTTP.UpstreamHeaders.Get("Authorization") == "Bearer secret-123"
			}},
	}
	for _, tc := range ok {
		o, err := parseProxyFlags(tc.args)
		if err != nil || !tc.want(o) {
			t.Errorf("%q: %+v, %v", tc.args, o.HTTP, err)
		}
	}
	bad := []struct {
		args []string
		want string
	}{
		{withBase("--listen", "0.0.0.0:80"), "flag --listen: 0.0.0.0 is not a loopback address; add --listen-allow-remote to serve it (anyone who reaches it can use the upstream)"},
		{withBase("--listen", "example.com:80"), "flag --listen: example.com is not a loopback address; add --listen-allow-remote"},
		{withBase("--listen", "abc"), `flag --listen: "abc" has no port number 0–65535`},
		{withBase("--listen", "1:2:3"), `flag --listen: "1:2:3" is not HOST:PORT, :PORT or PORT`},
		{withBase("--listen", "70000"), `flag --listen: "70000" has no port number 0–65535`},
		{withBase("--listen-path", "/x"), "flag --listen-path: only with --listen"},
		{withBase("--exit-when-idle", "1s"), "flag --exit-when-idle: only with --listen"},
		{withBase("--max-sessions", "4"), "flag --max-sessions: only with --listen"},
		{withBase("--session-idle", "1m"), "flag --session-idle: only with --listen"},
		{withBase("--listen", "0", "--max-sessions", "0"), "flag --max-sessions: 0 is out of range (1–10000 sessions)"},
		{withBase("--listen", "0", "--max-sessions", "lots"), `flag --max-sessions: "lots" is not a whole number of sessions`},
		{withBase("--listen", "0", "--session-idle", "0s"), "flag --session-idle: "},
		{withBase("--listen-allow-remote"), "flag --listen-allow-remote: only with --listen"},
		{withBase("--fault-layer", "http"), "flag --fault-layer: http only with --listen"},
		{withBase("--fault-layer", "wire"), `flag --fault-layer: "wire" is not tool or http`},
		{withBase("--listen", "0", "--ghost-hold", "1s"), "flag --ghost-hold: only with --fault-layer http"},
		{withBase("--upstream-per-session"), "flag --upstream-per-session: only with --listen and a stdio upstream (--upstream-command)"},
		{[]string{"--listen", "0", "--upstream-url", "http://x/mcp", "--upstream-per-session"}, "flag --upstream-per-session: only with --listen and a stdio upstream"},
		{withBase("--listen", "0", "--listen-path", "mcp"), `flag --listen-path: "mcp" is not a URL path`},
		{withBase("--listen", "0", "--listen-allow-origin", "evil.example"), `flag --listen-allow-origin: "evil.example" is not an origin`},
		{withBase("--upstream-url", "http://127.0.0.1:1/mcp"), "flag --upstream-command: not together with --upstream-url"},
		{[]string{"--upstream-url", "http://127.0.0.1:1/mcp", "--", "node"}, "flag --upstream-url: not together with a command after --"},
		{[]string{"--upstream-url", "ftp://x/mcp"}, `flag --upstream-url: "ftp://x/mcp" is not an http:// or https:// URL`},
		{[]string{"--upstream-url", "http://user:pw@x/mcp"}, "is not an http:// or https:// URL (credentials go in --upstream-header-env)"},
		{withBase("--upstream-header", "X-A: b"), "flag --upstream-header: only with --upstream-url"},
		{[]string{"--upstream-url", "http://x/mcp", "--upstream-header", "no colon"}, `flag --upstream-header: "no colon" is not 'Name: value'`},
		{[]string{"--upstream-url", "http://x/mcp", "--upstream-header", "Mcp-Session-Id: 1"}, "is not 'Name: value'"},
		{[]string{"--upstream-url", "http://x/mcp", "--upstream-header-env", "Authorization=AH_TEST_UNSET_VAR"}, "flag --upstream-header-env: environment variable AH_TEST_UNSET_VAR is not set or empty"},
	}
	for _, tc := range bad {
		_, err := parseProxyFlags(tc.args)
		var ue usageError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !asUsage(err, &ue) {
			t.Errorf("%q: got %v, want %q", tc.args, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret-123") {
			t.Errorf("%q: the error shows a header value", tc.args)
		}
	}
}

func asUsage(err error, ue *usageError) bool {
	u, ok := err.(usageError)
	*ue = u
	return ok
}

// FuzzParseListen: never panics; an accepted value is HOST:PORT with a
// port 0–65535 that parses again to itself.
func FuzzParseListen(f *testing.F) {
	for _, v := range []string{"0", ":8080", "127.0.0.1:0", "[::1]:9", "localhost:1", "a:b", ":", "1:2:3", "[::1]"} {
		f.Add(v)
	}
	f.Fuzz(func(t *testing.T, v string) {
		addr, err := parseListen(v)
		if err != nil {
			return
		}
		again, err := parseListen(addr)
		if err != nil || again != addr {
			t.Fatalf("%q → %q → %q, %v", v, addr, again, err)
		}
	})
}
