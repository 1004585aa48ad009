package main

import (
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/harness"
)

// groupHTTP holds the flags of the Streamable HTTP agent side (behaviour §8).
const groupHTTP = "HTTP"

// httpOptions are the --listen*, --fault-layer and --upstream-url flags
// (the session's HTTP settings).
type httpOptions = harness.HTTP

// upstreamURLFlags go into the Upstream group, after --upstream-command.
var upstreamURLFlags = []proxyFlag{
	{name: "upstream-url", arg: "URL", group: groupUpstream,
		usage: "the upstream's MCP Streamable HTTP endpoint, instead of --upstream-command",
		set: func(o *proxyOptions, v string) error {
			u, err := url.Parse(v)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
				return fmt.Errorf("%q is not an http:// or https:// URL (credentials go in --upstream-header-env)", v)
			}
			o.HTTP.UpstreamURL = v
			return nil
		}},
	{name: "upstream-header", arg: "'NAME: VALUE'", repeatable: true, group: groupUpstream,
		usage: "HTTP header for every upstream request, repeatable (visible in the process list: use --upstream-header-env for secrets)",
		set: func(o *proxyOptions, v string) error {
			name, value, ok := strings.Cut(v, ":")
			name, value = strings.TrimSpace(name), strings.TrimSpace(value)
			if !ok || !validHeaderName(name) || strings.ContainsAny(value, "\r\n") {
				return fmt.Errorf("%q is not 'Name: value'", v)
			}
			addHeader(&o.HTTP, name, value)
			return nil
		}},
	{name: "upstream-header-env", arg: "NAME=ENVVAR", repeatable: true, group: groupUpstream,
		usage: "HTTP header NAME for every upstream request, its value from the proxy's environment variable ENVVAR",
		set: func(o *proxyOptions, v string) error {
			name, env, ok := strings.Cut(v, "=")
			if !ok || !validHeaderName(name) || env == "" {
				return fmt.Errorf("%q is not NAME=ENVVAR", v)
			}
			value, set := os.LookupEnv(env)
			if !set || value == "" {
				return fmt.Errorf("environment variable %s is not set or empty", env)
			}
			if strings.ContainsAny(value, "\r\n") {
				return fmt.Errorf("environment variable %s holds a line break", env)
			}
			addHeader(&o.HTTP, name, value)
			return nil
		}},
	{name: "upstream-per-session", group: groupUpstream,
		usage: "with --listen and --upstream-command: one upstream process per agent session instead of one shared (a repeat in another session's process is then NOT_TESTED)",
		set: func(o *proxyOptions, _ string) error {
			o.HTTP.UpstreamPerSession = true
			return nil
		}},
}

func addHeader(h *httpOptions, name, value string) {
	if h.UpstreamHeaders == nil {
		h.UpstreamHeaders = http.Header{}
	}
	h.UpstreamHeaders.Add(name, value)
}

// validHeaderName: an HTTP token, not one the proxy sets itself.
func validHeaderName(name string) bool {
	if name == "" {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	switch http.CanonicalHeaderKey(name) {
	case "Content-Type", "Content-Length", "Accept", "Mcp-Session-Id", "Mcp-Protocol-Version", "Host", "Connection", "Transfer-Encoding":
		return false
	}
	return true
}

// httpFlags are appended to proxyFlags (before the Operations group).
var httpFlags = []proxyFlag{
	{name: "listen", arg: "HOST:PORT", group: groupHTTP, def: "stdio",
		usage: "serve MCP Streamable HTTP instead of stdio; PORT or :PORT bind loopback, port 0 picks a free one",
		set: func(o *proxyOptions, v string) error {
			addr, err := parseListen(v)
			o.HTTP.Listen = addr
			return err
		}},
	{name: "listen-path", arg: "PATH", group: groupHTTP, def: "/mcp",
		usage: "path of the MCP endpoint",
		set: func(o *proxyOptions, v string) error {
			if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?# \t") {
				return fmt.Errorf("%q is not a URL path (it starts with / and has no ?, # or spaces)", v)
			}
			o.HTTP.ListenPath = v
			return nil
		}},
	{name: "listen-allow-remote", group: groupHTTP,
		usage: "allow a --listen address that is not loopback, and any Host header (anyone who reaches it can use the upstream)",
		set: func(o *proxyOptions, _ string) error {
			o.HTTP.ListenAllowRemote = true
			return nil
		}},
	{name: "listen-allow-origin", arg: "ORIGIN", repeatable: true, group: groupHTTP,
		usage: "also serve requests with this Origin (e.g. https://app.example.com), repeatable",
		set: func(o *proxyOptions, v string) error {
			scheme, rest, ok := strings.Cut(v, "://")
			if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?# ") {
				return fmt.Errorf("%q is not an origin (scheme://host[:port], e.g. https://app.example.com)", v)
			}
			o.HTTP.ListenAllowOrigins = append(o.HTTP.ListenAllowOrigins, v)
			return nil
		}},
	{name: "exit-when-idle", arg: "DURATION", group: groupHTTP, def: "never",
		usage: "with --listen: exit 0 once no session has been open for this long (from launch), 1ms–24h",
		set:   setDuration(time.Millisecond, 24*time.Hour, "1ms–24h", func(o *proxyOptions) *time.Duration { return &o.HTTP.ExitWhenIdle })},
	{name: "max-sessions", arg: "N", group: groupHTTP, def: "32",
		usage: "with --listen: serve at most N sessions at once; an initialize beyond them gets HTTP 503, 1–10000",
		set:   setInt(1, 10000, "sessions", func(o *proxyOptions) *int { return &o.HTTP.MaxSessions })},
	{name: "session-idle", arg: "DURATION", group: groupHTTP, def: "10m",
		usage: "with --listen: end a session with neither a request nor an open stream for this long, 1ms–24h",
		set:   setDuration(time.Millisecond, 24*time.Hour, "1ms–24h", func(o *proxyOptions) *time.Duration { return &o.HTTP.SessionIdle })},
	{name: "fault-layer", arg: "tool|http", group: groupHTTP, def: "tool",
		usage: "tool: faults are tool results; http (with --listen): 429, 500, a cut body, a dropped connection",
		set: func(o *proxyOptions, v string) error {
			switch l := strings.ToLower(v); l {
			case "tool", "http":
				o.HTTP.FaultLayer = l
				return nil
			}
			return fmt.Errorf("%q is not tool or http", v)
		}},
	{name: "ghost-hold", arg: "DURATION", group: groupHTTP, def: "0s",
		usage: "--fault-layer http: hold F1's answer this long before dropping the connection, 0–10m",
		set:   setDuration(0, 10*time.Minute, "0–10m", func(o *proxyOptions) *time.Duration { return &o.HTTP.GhostHold })},
}

// parseListen normalises a --listen value to HOST:PORT: "PORT" and ":PORT"
// are the loopback address 127.0.0.1.
func parseListen(v string) (string, error) {
	host, port := "", v
	if strings.Contains(v, ":") {
		var err error
		host, port, err = net.SplitHostPort(v)
		if err != nil {
			return "", fmt.Errorf("%q is not HOST:PORT, :PORT or PORT", v)
		}
	}
	n, err := strconv.Atoi(port)
	if err != nil || n < 0 || n > 65535 || port == "" {
		return "", fmt.Errorf("%q has no port number 0–65535", v)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, strconv.Itoa(n)), nil
}

// isLoopbackHost: localhost or a loopback IP address.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.IsLoopback()
}

// checkHTTPCombinations checks the HTTP flags against each other and the
// mode.
func checkHTTPCombinations(o *proxyOptions, seen map[string]bool) error {
	h := &o.HTTP
	if h.UpstreamURL != "" {
		if o.commandWhere != "" {
			return usagef("flag --upstream-url: not together with a command %s", o.commandWhere)
		}
		for _, name := range []string{"upstream-command", "upstream-arg", "upstream-args", "upstream-cwd", "upstream-env", "upstream-env-var"} {
			if seen[name] {
				return usagef("flag --%s: not together with --upstream-url", name)
			}
		}
	} else {
		for _, name := range []string{"upstream-header", "upstream-header-env"} {
			if seen[name] {
				return usagef("flag --%s: only with --upstream-url", name)
			}
		}
	}
	if seen["upstream-per-session"] && (h.Listen == "" || h.UpstreamURL != "") {
		return usagef("flag --upstream-per-session: only with --listen and a stdio upstream (--upstream-command)")
	}
	if h.Listen == "" {
		for _, f := range httpFlags {
			if f.name != "listen" && seen[f.name] && f.name != "fault-layer" {
				return usagef("flag --%s: only with --listen", f.name)
			}
		}
		if h.FaultLayer == "http" {
			return usagef("flag --fault-layer: http only with --listen (the agent must reach the proxy over HTTP)")
		}
		return nil
	}
	host, _, _ := net.SplitHostPort(h.Listen)
	if !isLoopbackHost(host) && !h.ListenAllowRemote {
		return usagef("flag --listen: %s is not a loopback address; add --listen-allow-remote to serve it (anyone who reaches it can use the upstream)", host)
	}
	if seen["ghost-hold"] && h.FaultLayer != "http" {
		return usagef("flag --ghost-hold: only with --fault-layer http")
	}
	return nil
}
