package relay

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/wire"
)

const (
	methodToolsListChanged = "notifications/tools/list_changed"
	// exitDrain bounds how long, after the upstream process exited, the
	// relay waits for its remaining output before calling it gone.
	exitDrain = 500 * time.Millisecond
	// stderrDrain bounds the wait for the upstream's last stderr lines
	// before the crash message is printed.
	stderrDrain = time.Second
)

// readUpstream dispatches every message the upstream writes to its stdout.
func (s *session) readUpstream() {
	defer s.life.markUpstreamReaderDone()
	for {
		line, err := s.upR()
		if len(line) > 0 {
			s.fromUpstream(line)
		}
		if err != nil {
			break
		}
	}
	s.markUpstreamGone()
}

func (s *session) fromUpstream(line []byte) {
	if isBlank(line) {
		return
	}
	env, err := wire.ParseEnvelope(line)
	if err != nil {
		s.notOneMessage(line, err)
		return
	}
	if !env.HasMethod && !usableID(env.ID) && env.Error != nil {
		s.idlessError(env.Error)
		s.toAgent(line)
		return
	}
	if !env.HasMethod && env.ID != nil {
		s.upstreamResponse(line, env)
		return
	}
	if env.Method == methodToolsListChanged {
		s.cat.listChanged()
	}
	s.observeTaskNotice(env)
	s.toAgent(line)
}

// upstreamResponse routes a response by its id: an id of the proxy's own,
// given to the request when it was forwarded (see doc.go). A response
// whose id is not open — a second copy of an answer, an answer to a request
// the proxy gave up on, an invented id — is dropped with a warning, never
// forwarded or judged: the agent may have reused its id meanwhile.
func (s *session) upstreamResponse(line []byte, env wire.Envelope) {
	s.routeResponse(upMsg{line: line, env: env})
}

// routeResponse is upstreamResponse for m (m.err set: the proxy's own
// answer in place of an unusable one, see notOneMessage).
func (s *session) routeResponse(m upMsg) {
	env := m.env
	p, kind := s.reqs.take(wire.IDKey(env.ID))
	if p == nil {
		s.log.Printf("WARNING: the upstream sent a response to a request that is not open (id %s); it was dropped", shortID(env.ID))
		return
	}
	if kind == kindAbandoned {
		s.log.Printf("WARNING: the upstream answered request %s after agent-harness had given up on it (call timeout); the answer was dropped", shortID(env.ID))
		return
	}
	m.agentID = p.agentID
	switch kind {
	case kindPlain:
		s.observeTaskAnswer(p, env)
		s.hold.write(m.message())
	case kindList:
		s.toAgent(s.cat.toolsListAnswer(m.withAgentID()))
	case kindHandshake:
		s.toAgent(s.cat.withToolsCapability(m.withAgentID()))
	case kindWait:
		if p.hold {
			s.hold.start()
		}
		p.ch <- m
	}
}

// shortID is a response id for a log line, cut to 100 bytes where a
// character starts (the id is the upstream's text).
func shortID(id []byte) string { return escape.Shorten(string(id), 100) }

// message is the upstream's line with the agent's own id in place of the
// proxy's (unchanged for the proxy's own requests), not copied.
func (m upMsg) message() message {
	if m.agentID == nil {
		return whole(m.line)
	}
	return message{line: m.line, at: m.env.IDStart, cut: len(m.env.ID), id: m.agentID}
}

// withAgentID returns the line with the agent's own id in place of the
// proxy's, as a copy, and its envelope (for the answers the proxy changes).
func (m upMsg) withAgentID() ([]byte, wire.Envelope) {
	if m.agentID == nil {
		return m.line, m.env
	}
	line := m.line
	id := m.agentID
	out := make([]byte, 0, len(line)-len(m.env.ID)+len(id))
	out = append(out, line[:m.env.IDStart]...)
	out = append(out, id...)
	out = append(out, line[m.env.IDStart+len(m.env.ID):]...)
	if e, err := wire.ParseEnvelope(out); err == nil {
		return out, e
	}
	return line, m.env
}

// markUpstreamGone switches to UPSTREAM_UNAVAILABLE: waiters see the
// upstream gone, and the agent's other requests still waiting for an
// answer get an error.
func (s *session) markUpstreamGone() {
	s.life.markUpstreamGone(func() {
		for _, id := range s.reqs.takeForwarded() {
			s.toAgent(errorLine(id, &RPCError{Code: codeUpstreamGone, Message: textUpstreamDiedInRequest}))
		}
	})
}

// testHookWatchExit, when set by a test, runs before watchExit looks at
// the upstream's exit; a test uses it to impose an order of events.
var testHookWatchExit func(*session)

// watchExit notices the upstream's exit. An exit the proxy did not cause is
// a crash: it is reported with the tail of the upstream's stderr, and before
// the session started it is a start failure.
//
// Whether the proxy caused the exit is decided by what it knew when it
// asked the upstream to stop (goneAtStop), not by which of the two events
// this goroutine sees first: on a loaded machine the reaping of a crashed
// upstream can come after the agent's EOF made the proxy stop it.
func (s *session) watchExit() {
	defer s.life.markExitReported()
	if testHookWatchExit != nil {
		testHookWatchExit(s)
	}
	<-s.proc.Done()
	select {
	case <-s.life.upstreamReaderDone():
	case <-time.After(exitDrain):
	}
	s.markUpstreamGone()
	select {
	case <-s.proc.Stopping():
		if !s.life.goneAtStop.Load() {
			return
		}
	default:
	}
	select {
	case <-s.life.upstreamStderrDone():
	case <-time.After(stderrDrain):
	}
	how := s.proc.ExitDescription()
	var lines []string
	if s.cat.started() {
		lines = append(lines, fmt.Sprintf("the upstream MCP server exited unexpectedly (%s); later tool calls get UPSTREAM_UNAVAILABLE", how))
	} else {
		lines = append(lines, fmt.Sprintf("the upstream MCP server exited before the session started (%s)", how))
	}
	if t := s.tail.snapshot(); len(t) > 0 {
		lines = append(lines, "last lines of the upstream's stderr:")
		for _, l := range t {
			lines = append(lines, "  | "+l)
		}
	} else {
		lines = append(lines, "the upstream wrote nothing to stderr")
	}
	s.log.Lines(lines...)
	if !s.cat.started() {
		s.life.markStartFailed()
	}
}

// copyStderr copies the upstream's stderr to ours, each line prefixed
// "[agent-harness] upstream: ", and keeps its tail for crash reports.
func (s *session) copyStderr() {
	defer s.life.markStderrDone()
	br := bufio.NewReaderSize(s.proc.Stderr(), 16<<10)
	for {
		chunk, err := br.ReadSlice('\n')
		if len(chunk) > 0 {
			line := string(bytes.TrimRight(chunk, "\r\n"))
			s.log.Printf("upstream: %s", line)
			s.tail.add(line)
		}
		if err != nil && !errors.Is(err, bufio.ErrBufferFull) {
			return
		}
	}
}

// ownRequest sends a request of the proxy's own to the upstream and waits
// for its answer. Its id is a string "agent-harness/N", apart from the
// numeric ids of the agent's forwarded requests (see doc.go).
func (s *session) ownRequest(method string, params []byte) (upMsg, error) {
	if s.life.isUpstreamGone() {
		return upMsg{}, ErrUpstreamUnavailable
	}
	p := &pending{kind: kindWait, ch: make(chan upMsg, 1)}
	id, key := s.reqs.registerOwn(p)
	msg := make([]byte, 0, 80+len(method)+len(params))
	msg = append(msg, `{"jsonrpc":"2.0","id":`...)
	msg = append(msg, id...)
	msg = append(msg, `,"method":`...)
	msg = strconv.AppendQuote(msg, method)
	msg = append(msg, `,"params":`...)
	msg = append(msg, params...)
	msg = append(msg, "}\n"...)
	timer := time.NewTimer(s.opts.CallTimeout)
	tk, err := s.upW.send(whole(msg))
	if err != nil {
		s.reqs.unregister(key, p)
		return upMsg{}, ErrUpstreamUnavailable
	}
	defer timer.Stop()
	select {
	case m := <-p.ch:
		return m, nil
	case <-s.life.upstreamGone():
		select {
		case m := <-p.ch:
			return m, nil
		default:
		}
		s.reqs.unregister(key, p)
		return upMsg{}, ErrUpstreamUnavailable
	case <-timer.C:
		s.upW.withdraw(tk)
		s.reqs.abandon(key, p)
		return upMsg{}, ErrNoAnswer
	}
}

// usableID reports whether a raw JSON-RPC id can name a request: a string or
// a number (absent, null and other values cannot).
func usableID(id []byte) bool {
	if len(id) == 0 {
		return false
	}
	c := id[0]
	return c == '"' || c == '-' || (c >= '0' && c <= '9')
}

// idlessError logs an error response the upstream sent without a usable id
// (typically its own parse error, id null). It cannot be attributed to a
// request: it is forwarded to the agent as it came (as without the proxy)
// and requests still open keep waiting for their own answers, at most the
// call timeout. Failing an open call instead would be a guess, and a wrong
// one would turn a call that executed into one of unknown outcome and show
// the agent an error it would not have seen.
func (s *session) idlessError(errObj []byte) {
	msg := string(errObj)
	if v, _, ok := wire.Lookup(errObj, "message"); ok {
		if m, ok := wire.Unquote(v); ok {
			msg = m
		}
	}
	const maxLen = 500
	msg = strings.Join(strings.Fields(escape.Shorten(msg, maxLen)), " ")
	s.log.Printf("upstream sent an error without a request id: %s", msg)
}
