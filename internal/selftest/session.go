package selftest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/refagent"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// agentProtocolVersion is the MCP version the reference agents speak: the
// initialize handshake. The go-sdk's default (2026-07-28) starts with the
// stateless server/discover instead, which the relay does not classify
// tools for yet.
const agentProtocolVersion = "2025-11-25"

// pipelineClock adapts Clock to the pipeline's clock: waiting (a fault's
// delay, the session-end grace) moves the fake time forward at once, so it
// costs no wall time.
type pipelineClock struct{ *Clock }

// After advances the clock by d and returns a channel that has fired.
func (c pipelineClock) After(d time.Duration) <-chan time.Time {
	c.Advance(d)
	ch := make(chan time.Time, 1)
	ch <- c.Now()
	return ch
}

// session runs one MCP session: the backend's go-sdk server (newBackend) as
// the relay's in-process upstream, the relay with the pipeline (fault + judge)
// and the relay options as internal/harness composes them for `agent-harness
// proxy` (cfg), and a go-sdk client on the agent side of the relay, handed
// to drive. The session ends when drive returns: the client closes, the
// relay sees EOF, the pipeline ends the session and the judge gets its end
// event.
func session(ctx context.Context, cfg harness.Config, clock *Clock, backend *mcp.Server, f fault.Fault, j pipeline.Judge,
	drive func(context.Context, refagent.Caller) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	// Upstream: backend server ↔ relay.
	upRelay, upServer := net.Pipe()
	srvDone := make(chan error, 1)
	go func() {
		srvDone <- backend.Run(ctx, &mcp.IOTransport{Reader: upServer, Writer: upServer})
	}()

	// Agent: client ↔ relay, over two pipes.
	agentR, agentW := io.Pipe() // agent → relay
	relayR, relayW := io.Pipe() // relay → agent

	p := pipeline.New(pipeline.Options{
		Judge:  j,
		Fault:  f,
		Clock:  pipelineClock{clock},
		Stderr: io.Discard,
		Fatal:  func(error) {}, // no report file: nothing can fail
	})
	var logs lockedBuffer // the relay's stderr, shown when the run breaks
	ro := harness.RelayOptions(cfg, nil, agentR, relayW, &logs)
	ro.Upstream = relay.IOUpstream{RW: upRelay}
	ro.Pipeline, ro.Now = p, p.Now
	ro.OnSessionEnd = func(context.Context) { _ = p.OnSessionEnd() }
	var relayErr error
	relayDone := make(chan struct{})
	go func() {
		defer close(relayDone)
		relayErr = relay.Run(ctx, ro)
		_ = relayW.Close()
		_ = agentR.Close()
	}()

	client := mcp.NewClient(&mcp.Implementation{Name: "agent-harness-reference-agent", Version: "1.0.0"}, nil)
	// The client's Close closes only its writer (the relay sees EOF); the
	// relay closes its side when the session is over.
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: io.NopCloser(relayR), Writer: agentW},
		&mcp.ClientSessionOptions{ProtocolVersion: agentProtocolVersion})
	if err != nil {
		cancel()
		<-relayDone
		return fmt.Errorf("connecting the reference agent through the relay: %w%s", err, logs.tail())
	}
	driveErr := drive(ctx, cs)
	_ = cs.Close() // closes agentW: the relay sees EOF and ends the session
	<-relayDone
	cancel()
	if err := <-srvDone; err != nil && !errors.Is(err, context.Canceled) && !isClosed(err) {
		return errors.Join(driveErr, fmt.Errorf("simulated backend: %w", err))
	}
	if driveErr != nil {
		return fmt.Errorf("reference agent: %w%s", driveErr, logs.tail())
	}
	if relayErr != nil {
		return fmt.Errorf("relay: %w%s", relayErr, logs.tail())
	}
	return nil
}

func isClosed(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, net.ErrClosed)
}

// lockedBuffer collects the relay's log lines.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.b.Len() < 64<<10 {
		l.b.Write(p)
	}
	return len(p), nil
}

// tail returns the last log lines, prefixed for an error message.
func (l *lockedBuffer) tail() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(l.b.String()), "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	if len(lines) == 1 && lines[0] == "" {
		return ""
	}
	return "; relay log: " + strings.Join(lines, " | ")
}
