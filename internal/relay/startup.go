package relay

import (
	"fmt"
	"time"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// startup handles the agent's handshake — initialize, or server/discover
// (SEP-2575) — while the session has not started: forward it unchanged, take
// the upstream's result, list and classify all tools, print the table, then
// answer the agent with the upstream's result. Upstream→agent messages that
// arrive meanwhile are held back and delivered after the answer, in order.
// An error answer reaches the agent unchanged and the session stays
// unstarted: after a failed server/discover the agent falls back to
// initialize.
func (s *session) startup(line []byte, env wire.Envelope) {
	if s.life.isUpstreamGone() {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		return
	}
	p := &pending{kind: kindWait, ch: make(chan upMsg, 1), hold: true, agentID: env.ID}
	key, ok := s.reqs.registerAgent(p, wire.IDKey(env.ID), false)
	if !ok {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest, Message: "duplicate request id"}))
		return
	}
	timer := time.NewTimer(s.opts.CallTimeout)
	defer timer.Stop()
	tk, err := s.upW.send(message{line: line, at: env.IDStart, cut: len(env.ID), id: p.upID})
	if err != nil {
		s.reqs.unregister(key, p)
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		return
	}
	var m upMsg
	select {
	case m = <-p.ch:
	case <-s.life.upstreamGone():
		select {
		case m = <-p.ch:
		default:
			s.reqs.unregister(key, p)
			s.hold.release(whole(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamDiedInRequest})))
			return
		}
	case <-timer.C:
		s.upW.withdraw(tk)
		s.reqs.abandon(key, p)
		s.log.Printf("the upstream MCP server did not answer %s within %d ms", env.Method, s.opts.CallTimeout.Milliseconds())
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInternalError,
			Message: fmt.Sprintf("agent-harness: the upstream MCP server did not answer %s within %d ms", env.Method, s.opts.CallTimeout.Milliseconds())}))
		s.life.markStartFailed()
		return
	}
	if m.env.Result == nil {
		// A handshake error reaches the agent unchanged; it may try again
		// (after server/discover: with initialize).
		s.hold.release(m.message())
		return
	}
	if v, _, ok := wire.Lookup(m.env.Result, "protocolVersion"); ok {
		if pv, ok := wire.Unquote(v); ok {
			s.version.Store(&pv)
		}
	}
	var meta []byte
	if env.Method == methodDiscover {
		var ok bool
		if meta, ok = discoverListMeta(env.Params, m.env.Result); !ok {
			// No stateless protocol version in common: the agent falls
			// back to initialize, which starts the session.
			s.hold.release(m.message())
			return
		}
	}
	s.cat.listFirst(meta, hasToolsCapability(m.env.Result))
	if s.cat.offersExtras() && !hasToolsCapability(m.env.Result) {
		line, env := m.withAgentID()
		s.hold.release(whole(s.cat.withToolsCapability(line, env)))
		return
	}
	s.hold.release(m.message())
}
