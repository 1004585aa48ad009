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

// upstreamURLFlags define --upstream-url and its headers, in the Upstream
// group after --upstream-command.
func upstreamURLFlags(s *flagSet, h *httpOptions) {
	s.value(funcValue(func(v string) error {
		u, err := url.Parse(v)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fmt.Errorf("%q is not an http:// or https:// URL (credentials go in --upstream-header-env)", v)
		}
		h.UpstreamURL = v
		return nil
	}), "upstream-url", "URL", "", "the upstream's MCP Streamable HTTP endpoint, instead of --upstream-command")
	s.list(funcValue(func(v string) error {
		name, value, ok := strings.Cut(v, ":")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || !validHeaderName(name) || strings.ContainsAny(value, "\r\n") {
			return fmt.Errorf("%q is not 'Name: value'", v)
		}
		addHeader(h, name, value)
		return nil
	}), "upstream-header", "'NAME: VALUE'", "", "HTTP header for every upstream request, repeatable (visible in the process list: use --upstream-header-env for secrets)")
	s.list(funcValue(func(v string) error {
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
		addHeader(h, name, value)
		return nil
	}), "upstream-header-env", "NAME=ENVVAR", "", "HTTP header NAME for every upstream request, its value from the proxy's environment variable ENVVAR")
	s.toggle(&h.UpstreamPerSession, "upstream-per-session", "with --listen and --upstream-command: one upstream process per agent session instead of one shared (a repeat in another session's process is then NOT_TESTED)")
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

// httpFlags define the HTTP group, before the Operations group.
func httpFlags(s *flagSet, h *httpOptions) {
	s.group = groupHTTP
	s.value(funcValue(func(v string) error {
		addr, err := parseListen(v)
		h.Listen = addr
		return err
	}), "listen", "HOST:PORT", "stdio", "serve MCP Streamable HTTP instead of stdio; PORT or :PORT bind loopback, port 0 picks a free one")
	s.value(funcValue(func(v string) error {
		if !strings.HasPrefix(v, "/") || strings.ContainsAny(v, "?# \t") {
			return fmt.Errorf("%q is not a URL path (it starts with / and has no ?, # or spaces)", v)
		}
		h.ListenPath = v
		return nil
	}), "listen-path", "PATH", "/mcp", "path of the MCP endpoint")
	s.toggle(&h.ListenAllowRemote, "listen-allow-remote", "allow a --listen address that is not loopback, and any Host header (anyone who reaches it can use the upstream)")
	s.list(funcValue(func(v string) error {
		scheme, rest, ok := strings.Cut(v, "://")
		if !ok || (scheme != "http" && scheme != "https") || rest == "" || strings.ContainsAny(rest, "/?# ") {
			return fmt.Errorf("%q is not an origin (scheme://host[:port], e.g. https://app.example.com)", v)
		}
		h.ListenAllowOrigins = append(h.ListenAllowOrigins, v)
		return nil
	}), "listen-allow-origin", "ORIGIN", "", "also serve requests with this Origin (e.g. https://app.example.com), repeatable")
	s.value(durationValue{&h.ExitWhenIdle, time.Millisecond, 24 * time.Hour, "1ms–24h"}, "exit-when-idle", "DURATION", "never", "with --listen: exit 0 once no session has been open for this long (from launch), 1ms–24h")
	s.value(intValue{&h.MaxSessions, 1, 10000, "sessions"}, "max-sessions", "N", "32", "with --listen: serve at most N sessions at once; an initialize beyond them gets HTTP 503, 1–10000")
	s.value(durationValue{&h.SessionIdle, time.Millisecond, 24 * time.Hour, "1ms–24h"}, "session-idle", "DURATION", "10m", "with --listen: end a session with neither a request nor an open stream for this long, 1ms–24h")
	s.value(choiceValue(&h.FaultLayer, "tool or http", "tool", "http"), "fault-layer", "tool|http", "tool", "tool: faults are tool results; http (with --listen): 429, 500, a cut body, a dropped connection")
	s.value(durationValue{&h.GhostHold, 0, 10 * time.Minute, "0–10m"}, "ghost-hold", "DURATION", "0s", "--fault-layer http: hold F1's answer this long before dropping the connection, 0–10m")
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
func checkHTTPCombinations(o *proxyOptions, s *flagSet) error {
	seen := s.given
	h := &o.HTTP
	if h.UpstreamURL != "" {
		if o.commandWhere != "" {
			return usagef("flag --upstream-url: not together with a command %s", o.commandWhere)
		}
		for _, name := range []string{"upstream-command", "upstream-arg", "upstream-args", "upstream-cwd", "upstream-env", "upstream-env-var"} {
			if seen(name) {
				return usagef("flag --%s: not together with --upstream-url", name)
			}
		}
	} else {
		for _, name := range []string{"upstream-header", "upstream-header-env"} {
			if seen(name) {
				return usagef("flag --%s: only with --upstream-url", name)
			}
		}
	}
	if seen("upstream-per-session") && (h.Listen == "" || h.UpstreamURL != "") {
		return usagef("flag --upstream-per-session: only with --listen and a stdio upstream (--upstream-command)")
	}
	if h.Listen == "" {
		if name := s.givenIn(groupHTTP, "listen", "fault-layer"); name != "" {
			return usagef("flag --%s: only with --listen", name)
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
	if seen("ghost-hold") && h.FaultLayer != "http" {
		return usagef("flag --ghost-hold: only with --fault-layer http")
	}
	return nil
}
