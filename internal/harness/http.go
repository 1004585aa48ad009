package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/relay/httpagent"
	"github.com/cuonztech/agent-harness/internal/relay/httpupstream"
	"github.com/cuonztech/agent-harness/internal/report"
)

// httpShutdownWait bounds the wait for the sessions' relays at exit (each
// relay's own steps are bounded by its grace).
const httpShutdownWait = 30 * time.Second

// runHTTP serves the agent side as MCP Streamable HTTP (--listen,
// behaviour §8): every MCP session is one relay session, all judged by the
// one pipeline of sc. A stdio upstream is one process all sessions share
// (started now, behaviour §8.3), or with --upstream-per-session one process
// per session; an HTTP upstream is one upstream session per agent
// session. It runs until a signal (exit 128+N), the pipeline's fatal stop
// (ctx cancelled, exit 1), the shared process's exit before any session
// started (exit 1), or --exit-when-idle (exit 0).
func runHTTP(ctx context.Context, o Config, ro relay.Options, sc *Session, caught func() os.Signal, stderr io.Writer) error {
	ro.CallIDs = new(atomic.Int64) // one pipeline judges every session's calls
	logf := func(format string, args ...any) {
		fmt.Fprintf(stderr, "[agent-harness] %s\n", escape.Line(fmt.Sprintf(format, args...)))
	}
	// A command that cannot start is reported now, as on stdio.
	if o.HTTP.UpstreamURL == "" && !IsExecutable(o.Upstream.Command, o.Upstream.Dir) {
		// The relay's own line on stdio (relay.ErrStartFailed): it names no command.
		err := fmt.Errorf("cannot start the upstream MCP server %q: not an executable file", o.Upstream.Command)
		logf("%v", err)
		_ = sc.pipeline.StartupFailed(err)
		return ExitError{ExitFailure}
	}
	var shared *relay.SharedUpstream
	if o.HTTP.UpstreamURL == "" && !o.HTTP.UpstreamPerSession {
		// One process for every session, started at launch (behaviour §8.3).
		var err error
		if shared, err = relay.StartShared(ro); err != nil {
			_ = sc.pipeline.StartupFailed(err)
			return ExitError{ExitFailure}
		}
	}
	stopShared := func() {
		if shared != nil {
			shared.Stop()
		}
	}
	ln, err := net.Listen("tcp", o.HTTP.Listen)
	if err != nil {
		stopShared()
		_ = sc.pipeline.StartupFailed(err)
		return fmt.Errorf("cannot listen on %s: %w", o.HTTP.Listen, err)
	}
	srv := httpagent.New(httpagent.Options{
		Path:           o.HTTP.ListenPath,
		AllowOrigins:   o.HTTP.ListenAllowOrigins,
		AllowAnyHost:   o.HTTP.ListenAllowRemote,
		FaultLayerHTTP: o.HTTP.FaultLayer == "http",
		GhostHold:      o.HTTP.GhostHold,
		IdleTimeout:    o.HTTP.ExitWhenIdle,
		SessionIdle:    SessionIdle(o.HTTP),
		MaxSessions:    o.HTTP.MaxSessions,
		Logf:           logf,
		Run: func(ctx context.Context, conn relay.Conn, id string) error {
			so := ro
			so.Session = sc.sessions.add("http")
			so.Agent = conn
			so.Stdin, so.Stdout = nil, nil
			so.OnSessionEnd = nil // one final report for all sessions, below
			if o.HTTP.UpstreamURL != "" {
				uc := newUpstreamConn(o, stderr) // its own upstream session
				if ah, ok := conn.(interface{ AgentHeader() http.Header }); ok {
					uc.SetAgentHeader(ah.AgentHeader) // the agent's headers reach the upstream
				}
				so.Upstream = relay.ConnUpstream{Conn: uc}
			} else if shared != nil {
				so.Upstream = relay.ConnUpstream{Conn: shared.Session(so.Session)}
			}
			err := relay.Run(ctx, so)
			if errors.Is(err, relay.ErrStartFailed) {
				return errors.New("the upstream did not start")
			}
			return err
		},
	})
	hs := srv.HTTPServer(log.New(prefixWriter{w: stderr, prefix: "[agent-harness] http: "}, "", 0))
	go func() { _ = hs.Serve(ln) }()
	logf("listening on %s", listenURL(ln.Addr(), o.HTTP.ListenPath))

	var startFailed <-chan struct{}
	if shared != nil {
		startFailed = shared.StartFailed()
	}
	idleExit := false
	var runErr error
	select {
	case <-ctx.Done():
	case <-srv.Idle():
		idleExit = true
		logf("no session for %s: exiting (--exit-when-idle)", o.HTTP.ExitWhenIdle)
	case <-startFailed:
		// The shared process exited before any session started: a start
		// failure, exit 1, as on stdio (its lines are printed).
		runErr = relay.ErrStartFailed
	}
	wctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), httpShutdownWait)
	srv.Shutdown(wctx)
	cancel()
	// The answers the sessions wrote in their grace are still being
	// written to their POSTs: the HTTP server ends after them (bounded),
	// not by cutting their connections.
	grace := ro.StopGrace
	if grace <= 0 {
		grace = relay.DefaultStopGrace
	}
	hctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), grace)
	_ = hs.Shutdown(hctx)
	cancel()
	_ = hs.Close()
	// Every session has had its grace for the answers it waits for; the
	// shared process ends after the last of them.
	stopShared()
	if runErr == nil {
		if err := sc.pipeline.OnSessionEnd(); err != nil {
			sc.setFatal(err)
		}
	}
	failed := sc.finish(runErr)
	sc.summary(runErr, stderr)
	sig := caught()
	if idleExit {
		sig = nil // exit 0 after --exit-when-idle
	}
	return end(runErr, failed, sig)
}

// SessionIdle is how long a session may be idle: --session-idle, at most
// --exit-when-idle (a proxy told to exit when idle treats an idle session
// as gone; see RATIONALE.md).
func SessionIdle(h HTTP) time.Duration {
	d := h.SessionIdle
	if d <= 0 {
		d = httpagent.DefaultSessionIdle
	}
	if h.ExitWhenIdle > 0 && h.ExitWhenIdle < d {
		d = h.ExitWhenIdle
	}
	return d
}

// listenURL is the endpoint's URL for the listening address.
func listenURL(a net.Addr, path string) string {
	return "http://" + a.String() + path
}

// prefixWriter writes each line with a prefix (net/http's error log).
type prefixWriter struct {
	w      io.Writer
	prefix string
}

func (p prefixWriter) Write(b []byte) (int, error) {
	for _, line := range strings.Split(strings.TrimRight(string(b), "\n"), "\n") {
		fmt.Fprintf(p.w, "%s%s\n", p.prefix, line)
	}
	return len(b), nil
}

// newUpstreamConn is one upstream MCP session over Streamable HTTP
// (--upstream-url).
func newUpstreamConn(o Config, stderr io.Writer) *httpupstream.Conn {
	return httpupstream.New(httpupstream.Options{
		URL:     o.HTTP.UpstreamURL,
		Header:  o.HTTP.UpstreamHeaders,
		Timeout: o.UpstreamTimeout,
		Logf: func(format string, args ...any) {
			fmt.Fprintf(stderr, "[agent-harness] %s\n", escape.Line(fmt.Sprintf(format, args...)))
		},
	})
}

// sessionList is the report file's sessions (behaviour §8): "s1", "s2", … in
// order of their start, never the Mcp-Session-Id (which authorises use of
// a session).
type sessionList struct {
	mu   sync.Mutex
	list []report.SessionInfo
	// open records each new session (Pipeline.OpenSession); openOwn one
	// with an upstream process of its own (--upstream-per-session).
	open, openOwn func(id, transport string)
	// ownUpstream: every session starts its own upstream process.
	ownUpstream bool
}

// add lists a new session and returns its id.
func (l *sessionList) add(transport string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	id := "s" + strconv.Itoa(len(l.list)+1)
	l.list = append(l.list, report.SessionInfo{ID: id, Transport: transport, OwnUpstream: l.ownUpstream})
	switch {
	case l.ownUpstream && l.openOwn != nil:
		l.openOwn(id, transport)
	case l.open != nil:
		l.open(id, transport)
	}
	return id
}
