package relay

import (
	"errors"
	"fmt"
	"io"
	"runtime/debug"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// maxAgentDepth bounds the nesting of the agent's messages: deeper ones are
// refused with a clear error instead of being forwarded (most MCP servers'
// JSON parsers fail or recurse out of stack far earlier; encoding/json's
// limit is the same 10000).
const maxAgentDepth = 10000

const (
	methodInitialize = "initialize"
	methodToolsList  = "tools/list"
	methodToolsCall  = "tools/call"
	methodCancelled  = "notifications/cancelled"
)

// hugeMessage is the size from which a message read from the agent is
// followed by returning freed memory to the system at once.
const hugeMessage = 16 << 20

// agentWorker reads the agent's messages in order and runs tools/calls.
// One worker at a time reads. A tools/call runs on the worker that read it,
// after handing the reading to a spare worker (or a new one): the call's
// way to the upstream then needs no goroutine switch. A worker whose call
// is done waits as a spare, so workers and their grown stacks are reused
// (a goroutine switch, a goroutine start and stack growth each cost more
// than the relay's own work on a small call). A call is registered before
// the hand-over, so the order of the agent's messages is kept.
//
// EOF or a read error is sent to done and ends the spares.
func (s *session) agentWorker(read func() ([]byte, error), done chan<- error) {
	for {
		call, err := s.readUntilCall(read)
		if call == nil {
			if errors.Is(err, io.EOF) {
				err = nil
			}
			s.life.markAgentEOF()
			done <- err
			return
		}
		select {
		case s.baton <- struct{}{}:
		default:
			go s.agentWorker(read, done)
		}
		call()
		select {
		case <-s.baton: // read on
		case <-s.life.agentInputEnded():
			return
		}
	}
}

// readUntilCall handles the agent's messages until one is a tools/call,
// whose runner it returns; nil and the read error at the end of input.
func (s *session) readUntilCall(read func() ([]byte, error)) (func(), error) {
	for {
		line, err := read()
		if len(line) >= hugeMessage {
			// Reading the line left its fragments behind (as much again
			// as the line); return them before the message is scanned and
			// judged, which need as much again: peak memory stays near
			// twice the message instead of three times (BENCHMARKS.md).
			debug.FreeOSMemory()
		}
		if len(line) > 0 {
			if call := s.fromAgent(line); call != nil {
				return call, nil
			}
		}
		if err != nil {
			return nil, err
		}
	}
}

// fromAgent handles one message of the agent. For a tools/call it returns
// the function that runs the call.
func (s *session) fromAgent(line []byte) (call func()) {
	if isBlank(line) {
		return nil
	}
	env, err := wire.ParseEnvelope(line)
	if err != nil {
		if errors.Is(err, wire.ErrNotObject) {
			_ = s.agentW.write(errorLine(nil, &RPCError{Code: codeInvalidRequest,
				Message: "agent-harness: a message must be one JSON-RPC object (batches are not supported)"}))
			return nil
		}
		_ = s.agentW.write(errorLine(nil, &RPCError{Code: codeParseError,
			Message: "Parse error: " + err.Error()}))
		return nil
	}
	if env.Depth > maxAgentDepth {
		msg := fmt.Sprintf("agent-harness: the message is nested %d levels deep (more than %d); it was not forwarded", env.Depth, maxAgentDepth)
		if env.IsRequest() {
			_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest, Message: msg}))
		} else {
			s.log.Printf("WARNING: %s", msg)
		}
		return nil
	}
	if env.Variant != "" {
		s.refuseVariant(env, env.Variant, env.VariantOf)
		return nil
	}
	switch {
	case env.IsRequest():
		if env.Method != methodPing {
			s.requestsRead.Add(1)
		}
		if env.Method != methodDiscover && env.Method != methodPing && s.opts.OnServed != nil && !s.served.Swap(true) {
			s.opts.OnServed()
		}
		switch env.Method {
		case methodInitialize, methodDiscover:
			if !s.cat.started() {
				s.startup(line, env)
				return nil
			}
			s.forwardRequest(line, env, kindHandshake)
			return nil
		case methodPing:
		default:
			if !s.cat.started() {
				s.cat.listLazily(env)
			}
		}
		switch env.Method {
		case methodToolsCall:
			return s.startCall(line, env)
		case methodToolsList:
			if s.cat.answersListing() {
				_ = s.agentW.write(s.cat.localToolsList(env.ID, s.callVersion(requestMetaOf(env.Params))))
				return nil
			}
			s.forwardRequest(line, env, kindList)
			return nil
		}
		s.forwardRequest(line, env, kindPlain)
	case env.IsNotification():
		switch env.Method {
		case methodToolsCall:
			s.dropIdlessCall(env)
		case methodCancelled:
			s.forwardCancel(line, env)
		default:
			s.toUpstream(line)
		}
	default:
		// Responses to the upstream's requests (sampling, elicitation,
		// roots/list, ping) and anything else go through unchanged.
		s.toUpstream(line)
	}
	return nil
}

// refuseVariant refuses one of the agent's messages that has a member whose
// name differs from one the relay reads only in letter case ("ID", "NAME"):
// a server that matches names case-insensitively (Go's encoding/json, last
// member wins) reads it as that member, a server that does not (JavaScript,
// Python) ignores it, and the judge would see another message than the one
// executed. It is not forwarded: a message with a usable id gets an Invalid
// Request error, one without is dropped (nobody waits for an answer).
func (s *session) refuseVariant(env wire.Envelope, got, want string) {
	msg := fmt.Sprintf("agent-harness: member %q differs from %q only in letter case; servers disagree on what it means, so the message was not forwarded", got, want)
	s.log.Printf("WARNING: %s", msg)
	if usableID(env.ID) {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest, Message: msg}))
	}
}

// toUpstream forwards a message that needs no answer; once the upstream is
// gone it is dropped.
func (s *session) toUpstream(line []byte) {
	s.toUpstreamMsg(whole(line))
}

func (s *session) toUpstreamMsg(m message) {
	if s.life.isUpstreamGone() {
		return
	}
	if _, err := s.upW.send(m); errors.Is(err, errQueueFull) {
		s.log.Printf("WARNING: a notification for the upstream was dropped: %v", err)
	}
}

// forwardRequest forwards one of the agent's requests with an id of the
// proxy's own and remembers the agent's, so the agent gets the answer with
// its own id, or an error instead of silence if the upstream exits.
func (s *session) forwardRequest(line []byte, env wire.Envelope, kind pendingKind) {
	if s.life.isUpstreamGone() {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: textUpstreamUnavailable}))
		return
	}
	p := &pending{kind: kind, agentID: env.ID, stream: env.Method == methodSubscriptionsListen}
	if isTaskRequest(env.Method) {
		p.taskMethod, p.taskID = env.Method, taskIDOf(env.Params)
	}
	key, ok := s.reqs.registerAgent(p, wire.IDKey(env.ID), false)
	if !ok {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest,
			Message: "agent-harness: duplicate request id (an earlier request with this id is still open)"}))
		return
	}
	if _, err := s.upW.send(message{line: line, at: env.IDStart, cut: len(env.ID), id: p.upID}); err != nil {
		if still := s.reqs.unregister(key, p); still {
			msg := textUpstreamUnavailable
			if errors.Is(err, errQueueFull) {
				msg = "agent-harness: the request was not sent: " + err.Error()
			}
			_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeUpstreamGone, Message: msg}))
		}
	}
}

// forwardCancel forwards the agent's notifications/cancelled with the
// requestId the upstream knows: the proxy's id of that request. The
// agent's tools/call it names gets no answer, neither the proxy's own nor
// the upstream's when it still arrives (that one is judged); with
// Options.SwallowCancel a cancellation of a tools/call is not forwarded. A
// cancellation of a request that is not open at the upstream (answered
// already, still in the pipeline, given up, unknown) is not forwarded: its
// id could be the upstream's id of another request. One whose params name
// the request ambiguously (requestId twice, or a case variant of it, which
// some servers read as requestId) is dropped with a warning.
func (s *session) forwardCancel(line []byte, env wire.Envelope) {
	var id []byte
	at, n := 0, 0
	ambiguous := false
	_, _ = wire.Members(env.Params, func(m wire.Member) bool {
		if m.KeyIs("requestId") {
			id, at = m.Value, m.ValueStart
			n++
		} else if v, _, _ := m.CaseVariant(cancelParamNames); v != "" {
			ambiguous = true
		}
		return true
	})
	if n > 1 || ambiguous {
		s.log.Printf("WARNING: a %s of the agent names its request ambiguously (requestId twice or in another letter case); it was not forwarded", methodCancelled)
		return
	}
	if n == 0 {
		s.toUpstream(line) // nothing to map: forwarded as it came
		return
	}
	key := wire.IDKey(id)
	cs, p := s.reqs.byAgentID(key)
	if cs != nil {
		cs.cancelled.Store(true)
		if s.opts.SwallowCancel {
			// behaviour §2.6: the upstream runs the call to its end.
			s.log.Printf("the agent cancelled tools/call %s; --on-cancel swallow: the cancellation was not forwarded", id)
			return
		}
	}
	if p == nil || p.upID == nil {
		return
	}
	s.toUpstreamMsg(message{line: line, at: env.ParamsStart + at, cut: len(id), id: p.upID})
}

// cancelParamNames are the members of a cancellation's params the relay
// reads.
var cancelParamNames = []string{"requestId"}

// dropIdlessCall drops a tools/call without an id: it is a notification,
// which cannot be answered, but a lenient server would execute it, and the
// judge would never see it. It is logged and counted (DroppedCallObserver).
func (s *session) dropIdlessCall(env wire.Envelope) {
	v, _, _ := wire.Lookup(env.Params, "name")
	name, _ := wire.Unquote(v)
	s.log.Printf("WARNING: the agent sent a tools/call without an id (tool %q); a notification cannot be answered, so it was not forwarded (counted in the report's coverage.droppedNotificationCalls)", name)
	if o, ok := s.opts.Pipeline.(DroppedCallObserver); ok {
		o.DroppedCall(DroppedCall{Tool: name})
	}
}
