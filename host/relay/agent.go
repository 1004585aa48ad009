package relay

import (
	"errors"

	"github.com/cuonztech/agent-harness/host/relay/internal/wire"
)

const (
	methodInitialize = "initialize"
	methodToolsList  = "tools/list"
	methodToolsCall  = "tools/call"
	methodCancelled  = "notifications/cancelled"
)

// readAgent handles the agent's messages in order until EOF.
func (s *session) readAgent() error {
	return readLines(s.opts.Stdin, s.fromAgent)
}

func (s *session) fromAgent(line []byte) {
	if isBlank(line) {
		return
	}
	env, err := wire.ParseEnvelope(line)
	if err != nil {
		if errors.Is(err, wire.ErrNotObject) {
			_ = s.agentW.write(errorLine(nil, &RPCError{Code: codeInvalidRequest,
				Message: "agent-harness: a message must be one JSON-RPC object (batches are not supported)"}))
			return
		}
		_ = s.agentW.write(errorLine(nil, &RPCError{Code: codeParseError,
			Message: "Parse error: " + err.Error()}))
		return
	}
	switch {
	case env.IsRequest():
		switch env.Method {
		case methodInitialize:
			if !s.initialized.Load() {
				s.startup(line, env)
				return
			}
		case methodToolsCall:
			s.startCall(line, env)
			return
		case methodToolsList:
			if !s.upHasTools.Load() && s.initialized.Load() && len(s.extras.Load().raws) > 0 {
				_ = s.agentW.write(s.localToolsList(env.ID))
				return
			}
			s.forwardRequest(line, env, kindList)
			return
		}
		s.forwardRequest(line, env, kindPlain)
	case env.IsNotification():
		if env.Method == methodCancelled {
			s.noteCancelled(env.Params)
		}
		s.toUpstream(line)
	default:
		// Responses to the upstream's requests (sampling, elicitation,
		// roots/list, ping) and anything else go through unchanged.
		s.toUpstream(line)
	}
}

// toUpstream forwards a message that needs no answer; once the upstream is
// gone it is dropped.
func (s *session) toUpstream(line []byte) {
	if s.upstreamGone() {
		return
	}
	_ = s.upW.write(line)
}

// forwardRequest forwards one of the agent's requests and remembers its id,
// so the agent gets an error instead of silence if the upstream exits.
func (s *session) forwardRequest(line []byte, env wire.Envelope, kind pendingKind) {
	if s.upstreamGone() {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		return
	}
	key := wire.IDKey(env.ID)
	p := &pending{kind: kind, agentID: env.ID}
	if !s.register(key, p) {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest,
			Message: "agent-harness: duplicate request id (an earlier request with this id is still open)"}))
		return
	}
	if err := s.upW.write(line); err != nil {
		s.mu.Lock()
		_, still := s.pending[key]
		delete(s.pending, key)
		s.noteIdleLocked()
		s.mu.Unlock()
		if still {
			_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		}
	}
}

// noteCancelled remembers that the agent cancelled one of its tools/call
// requests: the proxy then sends no answer of its own for it.
func (s *session) noteCancelled(params []byte) {
	id, _, ok := wire.Lookup(params, "requestId")
	if !ok {
		return
	}
	s.mu.Lock()
	cs := s.calls[wire.IDKey(id)]
	s.mu.Unlock()
	if cs != nil {
		cs.cancelled.Store(true)
	}
}
