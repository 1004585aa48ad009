package relay

import (
	"context"
	"errors"
	"fmt"
	"time"
)

var (
	// ErrStartFailed: the upstream could not be started, or exited (or did
	// not answer initialize) before the session started. Exit code 1.
	ErrStartFailed = errors.New("upstream start failed")
	// ErrAgentGone: writing to the agent failed (it stopped reading, e.g. a
	// broken pipe).
	ErrAgentGone = errors.New("the agent stopped reading")
)

// Run starts the upstream at once and relays one MCP session between the
// agent (Options.Stdin/Stdout) and the upstream until the agent closes its
// input, ctx is cancelled (a signal), or the agent stops reading. Then it
// calls Options.OnSessionEnd and stops the upstream's whole process group.
//
// Run writes its own diagnostics to Options.Stderr; the returned error only
// tells the caller how the session ended: nil (agent EOF or ctx cancelled),
// ErrStartFailed, ErrAgentGone, or an invalid Options error.
func Run(ctx context.Context, opts Options) error {
	opts = opts.withDefaults()
	if opts.Upstream == nil {
		return errors.New("relay: no upstream command")
	}
	if opts.Agent == nil {
		in, releaseIn := pollableInput(opts.Stdin)
		defer releaseIn()
		opts.Stdin = in
	}
	agent := agentSide(opts)
	s, err := newSession(ctx, opts, agent.w)
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	up, stop, err := opts.Upstream.open(s)
	if err != nil {
		return err
	}

	s.upR = up.read
	s.upW = newUpWriter(up.w, up.try, func(error) { s.markUpstreamGone() })
	go s.readUpstream()
	if s.proc != nil {
		go s.copyStderr()
		go s.watchExit()
	}

	agentDone := make(chan error, 1)
	go s.agentWorker(agent.read, agentDone)

	var result error
	select {
	case err := <-agentDone:
		if err != nil {
			s.log.Printf("reading from the agent failed: %v; stopping", err)
		}
	case <-ctx.Done():
	case <-s.life.agentStopped():
		s.log.Printf("the agent stopped reading (broken pipe); stopping")
		result = ErrAgentGone
	case <-s.life.startFailure():
		result = ErrStartFailed
	}
	if result == nil {
		// Answers to requests still open reach the agent as they would
		// without the proxy (bounded by the grace).
		s.reqs.waitIdle(opts.StopGrace)
	}
	if result != ErrStartFailed {
		// Tasks whose final status is unknown (behaviour §4.13), while
		// the upstream still runs.
		s.pollOpenTasks()
	}
	if result != ErrStartFailed && opts.OnSessionEnd != nil {
		opts.OnSessionEnd(context.WithoutCancel(ctx))
	}
	// What the agent sent last (e.g. a cancellation) reaches the upstream
	// before its input is closed, unless it does not read (bounded).
	s.upW.flush(opts.StopGrace)
	stop()
	s.upW.close()
	s.finish(result == nil)
	return result
}

// finish ends the session after the upstream was stopped. With drain, what
// the upstream wrote before it exited still reaches the agent (each wait
// bounded by the grace); then no further message is written to the agent,
// and one being written is completed, so stdout never ends mid-message.
func (s *session) finish(drain bool) {
	grace := s.opts.StopGrace
	if drain {
		select {
		case <-s.life.upstreamReaderDone():
		case <-time.After(grace):
		}
		s.reqs.waitIdle(grace)
	}
	if s.proc != nil {
		s.proc.Close()
	}
	s.agentW.close(grace)
}
