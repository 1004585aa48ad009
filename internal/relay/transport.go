package relay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/cuonztech/agent-harness/internal/proc"
	"github.com/cuonztech/agent-harness/internal/relay/internal/fdio"
)

// Upstream is how a session reaches the upstream MCP server: the upstream
// half of the transport seam (Options.Upstream; model: go-sdk
// mcp.Transport). CommandUpstream starts a process and speaks
// newline-delimited JSON-RPC on its stdin and stdout; ConnUpstream is a
// message-level Conn (Streamable HTTP, or one session of a SharedUpstream);
// IOUpstream is an in-process byte stream (the benchmark's simulated
// backend, tests). Each only opens its side (relay.side): nothing past it
// knows which one it is.
type Upstream interface {
	// open opens the upstream for session s: its side, and how to stop it
	// when the session ends. A failure to start wraps ErrStartFailed and
	// has printed its line.
	open(s *session) (up side, stop func(), err error)
	// share opens it for the sessions of u (StartShared).
	share(u *SharedUpstream) error
}

// CommandUpstream starts the upstream MCP server as a process in its own
// process group (stdio transport). Env holds extra KEY=VALUE entries
// appended to the proxy's own environment.
type CommandUpstream struct {
	Command string
	Args    []string
	Dir     string
	Env     []string
}

// start starts the process, or prints why it could not (log).
func (c CommandUpstream) start(log *logger) (*proc.Process, error) {
	if c.Command == "" {
		return nil, errors.New("relay: no upstream command")
	}
	p, err := proc.Start(proc.Spec{Command: c.Command, Args: c.Args, Dir: c.Dir, Env: append(os.Environ(), c.Env...)})
	if err != nil {
		log.Printf("cannot start the upstream MCP server %s: %v", strconv.Quote(c.Command), err)
		return nil, fmt.Errorf("%w: %w", ErrStartFailed, err)
	}
	return p, nil
}

func (c CommandUpstream) open(s *session) (side, func(), error) {
	p, err := c.start(s.log)
	if err != nil {
		return side{}, nil, err
	}
	s.proc = p
	stop := func() {
		exited := false
		select {
		case <-p.Done():
			exited = true
		default:
		}
		s.life.goneAtStop.Store(exited || s.life.isUpstreamGone())
		p.Stop(s.opts.StopGrace)
		// A crash report in progress is printed before Run returns.
		select {
		case <-s.life.exitReported():
		case <-time.After(exitDrain + stderrDrain + s.opts.StopGrace):
		}
	}
	return pipeSide(p.Stdout(), p.Stdin(), fdio.TryWriter(p.Stdin())), stop, nil
}

func (c CommandUpstream) share(u *SharedUpstream) error {
	p, err := c.start(u.log)
	if err != nil {
		return err
	}
	u.proc = p
	u.upW = newUpWriter(p.Stdin(), fdio.TryWriter(p.Stdin()), func(error) { u.markGone() })
	stderrDone := make(chan struct{})
	go u.copyStderr(stderrDone)
	go u.read(lineReader(p.Stdout()))
	go u.watchExit(stderrDone)
	return nil
}

// ConnUpstream is a message-level upstream: an HTTP transport
// (httpupstream.Conn) or one session of a SharedUpstream. There is no
// process, stderr or exit to watch; its ReadMessage returning an error is
// the upstream gone (UPSTREAM_UNAVAILABLE). The relay closes it when the
// session ends.
type ConnUpstream struct{ Conn Conn }

func (c ConnUpstream) open(*session) (side, func(), error) {
	if c.Conn == nil {
		return side{}, nil, errors.New("relay: no upstream connection")
	}
	return connSide(c.Conn), func() { _ = c.Conn.Close() }, nil
}

func (c ConnUpstream) share(*SharedUpstream) error {
	return errors.New("relay: a message-level upstream is not shared (each session has its own)")
}

// IOUpstream is an in-process upstream on a byte stream of
// newline-delimited JSON-RPC both ways: the benchmark's simulated backend.
// There is no process, stderr or exit to watch; the relay closes it when
// the session ends. When RW has a method TryWrite(p []byte) (int, error)
// that writes what it takes now without waiting (n < len(p), nil error:
// full), the relay uses it to write without a goroutine switch.
type IOUpstream struct{ RW io.ReadWriteCloser }

// tryWriter is RW's TryWrite, or nil.
func (c IOUpstream) tryWriter() func([]byte) (int, error) {
	if t, ok := c.RW.(interface{ TryWrite([]byte) (int, error) }); ok {
		return t.TryWrite
	}
	return nil
}

func (c IOUpstream) open(*session) (side, func(), error) {
	if c.RW == nil {
		return side{}, nil, errors.New("relay: no upstream stream")
	}
	return pipeSide(c.RW, c.RW, c.tryWriter()), func() { _ = c.RW.Close() }, nil
}

func (c IOUpstream) share(u *SharedUpstream) error {
	if c.RW == nil {
		return errors.New("relay: no upstream stream")
	}
	u.upW = newUpWriter(c.RW, c.tryWriter(), func(error) { u.markGone() })
	close(u.exitWatched)
	go u.read(lineReader(c.RW))
	return nil
}
