package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/mcpver"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// callParamNames are the members of tools/call params the relay or the
// upstream reads to know which tool runs with which arguments.
var callParamNames = []string{"name", "arguments", "_meta"}

// startCall registers one of the agent's tools/call requests and returns
// the function that runs it (the pipeline, or LocalTool for an extra tool);
// nil when it was answered at once.
func (s *session) startCall(line []byte, env wire.Envelope) func() {
	var nameRaw, args, meta []byte
	var variant, variantOf string
	_, _ = wire.Members(env.Params, func(m wire.Member) bool {
		switch {
		case m.KeyIs("name"):
			nameRaw = m.Value
		case m.KeyIs("arguments"):
			args = m.Value
		case m.KeyIs("_meta"):
			meta = m.Value
		default:
			if variant == "" {
				variant, variantOf, _ = m.CaseVariant(callParamNames)
			}
		}
		return true
	})
	if variant != "" {
		s.refuseVariant(env, variant, variantOf)
		return nil
	}
	name, _ := wire.Unquote(nameRaw)
	key := wire.IDKey(env.ID)
	cs := &callState{}
	if !s.reqs.openCall(key, cs) {
		_ = s.agentW.write(errorLine(env.ID, &RPCError{Code: codeInvalidRequest,
			Message: "agent-harness: duplicate request id (an earlier request with this id is still open)"}))
		return nil
	}
	seq := s.nextCallID()
	var readAt time.Time
	if s.opts.Now != nil {
		readAt = s.opts.Now()
	}
	id, params, idStart := env.ID, env.Params, env.IDStart // not env: the closure would move it to the heap
	version := s.callVersion(meta)
	reqSeq := s.requestsRead.Load() // fromAgent counted this one
	return func() {
		if !s.cat.upstreamTools().has(name) {
			// A tool the upstream just added: the agent learnt of it from
			// notifications/tools/list_changed, which the proxy forwards
			// only after it started re-listing.
			s.cat.waitRelisted()
		}
		if s.cat.extra(name) {
			s.runLocal(name, args, id, key, version)
			return
		}
		info := s.cat.upstreamTools().lookup(name)
		call := &ToolCall{
			ID:              seq,
			Tool:            name,
			Class:           info.Class,
			AcceptsKey:      len(info.KeyFields) > 0,
			Idempotent:      info.Idempotent,
			Arguments:       args,
			Params:          params,
			ReadAt:          readAt,
			OutputSchema:    info.OutputSchema,
			ProtocolVersion: version,
			Session:         s.opts.Session,
			RequestSeq:      reqSeq,
		}
		s.runCall(call, cs, &forwarder{s: s, line: line, idStart: idStart, key: key, agentID: id, version: version})
	}
}

// answerCall writes a call's answer. The agent's id is free before the
// agent can read the answer (it may reuse the id at once), while the
// session end still waits for the answer to be written.
func (s *session) answerCall(key string, m message) {
	s.reqs.answering(key)
	_ = s.agentW.writeMsg(m)
	s.reqs.done()
}

// runCall runs the pipeline for one call and answers the agent.
func (s *session) runCall(call *ToolCall, cs *callState, f *forwarder) {
	defer s.reqs.endCall(f.key)
	resp, err := s.handle(call, f)
	if err != nil {
		if cs.cancelled.Load() || errors.Is(err, ErrWithheld) {
			return // the agent cancelled the call, or the proxy is stopping
		}
		s.answerCall(f.key, whole(resultLine(f.agentID, toolErrorResult(s.errorText(err, f.sent()), f.version))))
		return
	}
	if cs.cancelled.Load() {
		// behaviour §2.6: the agent cancelled the call; an answer that
		// still arrived was judged (the write may have executed), and the
		// agent, which has given the request up, does not get it.
		s.log.Printf("the answer to tools/call %s arrived after the agent cancelled it: judged, not delivered", f.agentID)
		return
	}
	m := s.responseLine(f, resp)
	if resp.Fault != "" && resp.Result != nil {
		s.answerCallFault(f.key, m, TransportFault{Kind: resp.Fault, RetryAfter: resp.RetryAfter})
		return
	}
	s.answerCall(f.key, m)
}

// answerCallFault is answerCall for an injected fault, which an agent
// transport may deliver at its own layer (FaultConn).
func (s *session) answerCallFault(key string, m message, tf TransportFault) {
	s.reqs.answering(key)
	_ = s.agentW.writeFault(m, tf)
	s.reqs.done()
}

// handle calls the pipeline; a panic in it becomes an error for this call
// only.
func (s *session) handle(call *ToolCall, f *forwarder) (resp Response, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("internal error in the call pipeline: %v", r)
		}
	}()
	resp, err = s.opts.Pipeline.HandleCall(s.callCtx, call, f.forward)
	if err == nil && resp.Error == nil && (resp.Result == nil || (!f.isUpstreamResult(resp.Result) && !wire.Valid(resp.Result))) {
		err = errors.New("the call pipeline returned no valid result")
	}
	return resp, err
}

// errorText is the tool-error text the agent gets for a pipeline error.
func (s *session) errorText(err error, sent bool) string {
	switch {
	case errors.Is(err, errQueueFull):
		return "Error: agent-harness did not send this call: " + errQueueFull.Error() + ". It was not executed."
	case errors.Is(err, ErrUpstreamUnavailable) && sent:
		return textUpstreamDiedInCall
	case errors.Is(err, ErrUpstreamUnavailable):
		return textUpstreamUnavailable
	case errors.Is(err, ErrNoAnswer):
		return textNoAnswer(s.opts.CallTimeout)
	case errors.Is(err, ErrSessionEnded):
		return textSessionEnded
	case errors.Is(err, errBatchAnswer):
		return textBatchAnswerResult
	default:
		return "Error: agent-harness could not handle this call: " + err.Error()
	}
}

// responseLine is the agent's answer for resp: the upstream's own line,
// byte for byte but for the agent's own id in place of the proxy's, when
// resp is the upstream's answer; else a new line with the agent's id.
func (s *session) responseLine(f *forwarder, resp Response) message {
	if resp.Error != nil {
		if f.got != nil && resp.Error == f.rpcErr {
			return f.got.message()
		}
		return whole(errorLine(f.agentID, resp.Error))
	}
	if f.isUpstreamResult(resp.Result) {
		return f.got.message()
	}
	// A result the pipeline made (a fault's, a replaced or marked one): valid
	// for the call's revision, as every result the proxy makes.
	return whole(resultLine(f.agentID, mcpver.Complete(resp.Result, f.version)))
}

// runLocal answers a call to one of the extra tools.
func (s *session) runLocal(name string, args []byte, agentID []byte, key, version string) {
	defer s.reqs.endCall(key)
	var res json.RawMessage
	var err error
	func() {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("internal error: %v", r)
			}
		}()
		if s.opts.LocalTool == nil {
			err = errors.New("no handler for this tool")
			return
		}
		res, err = s.opts.LocalTool(s.callCtx, name, args)
	}()
	if err == nil && !wire.Valid(res) {
		err = errors.New("the tool returned an invalid result")
	}
	if err != nil {
		res = toolErrorResult(fmt.Sprintf("Error: %s: %v", name, err), version)
	}
	s.answerCall(key, whole(resultLine(agentID, mcpver.Complete(res, version))))
}

// forwarder is the Forward func of one call.
type forwarder struct {
	s       *session
	line    []byte // the agent's request, unchanged
	idStart int    // the offset of its id
	key     string // the IDKey of the agent's id
	agentID []byte
	version string // the call's protocol revision (ToolCall.ProtocolVersion)

	used atomic.Bool
	// tk is the request's place in the upstream writer's queue.
	tk atomic.Pointer[ticket]
	// got is the upstream's answer; rpcErr its decoded error.
	got    *upMsg
	rpcErr *RPCError
}

// isUpstreamResult reports whether r is the very result bytes the upstream
// sent (not a copy or a replacement).
func (f *forwarder) isUpstreamResult(r json.RawMessage) bool {
	if f.got == nil || f.got.env.Result == nil || len(r) != len(f.got.env.Result) || len(r) == 0 {
		return false
	}
	return &r[0] == &f.got.env.Result[0]
}

// sent reports whether the request may have reached the upstream.
func (f *forwarder) sent() bool {
	tk := f.tk.Load()
	return tk != nil && tk.begun.Load()
}

// forward sends the agent's request to the upstream, unchanged but for an
// id of the proxy's own, and waits for the answer, at most
// Options.CallTimeout from now: writing the request is part of that wait (an
// upstream that does not read its input does not answer either).
func (f *forwarder) forward(ctx context.Context) (Response, error) {
	s := f.s
	if f.used.Swap(true) {
		return Response{}, errors.New("forward called twice for one call")
	}
	if s.life.isUpstreamGone() {
		return Response{}, ErrUpstreamUnavailable
	}
	timer := time.NewTimer(s.opts.CallTimeout)
	defer timer.Stop()
	p := &pending{kind: kindWait, ch: make(chan upMsg, 1), agentID: f.agentID}
	upKey, ok := s.reqs.registerAgent(p, f.key, true)
	if !ok {
		return Response{}, errors.New("an earlier request with the same id is still open")
	}
	tk, err := s.upW.send(message{line: f.line, at: f.idStart, cut: len(f.agentID), id: p.upID})
	if err != nil {
		s.reqs.unregister(upKey, p)
		if errors.Is(err, errQueueFull) {
			return Response{}, fmt.Errorf("%w: %w", ErrUpstreamUnavailable, err)
		}
		return Response{}, ErrUpstreamUnavailable
	}
	f.tk.Store(tk)
	select {
	case m := <-p.ch:
		return f.answer(m)
	case <-s.life.upstreamGone():
		select {
		case m := <-p.ch:
			return f.answer(m)
		default:
		}
		s.reqs.unregister(upKey, p)
		return Response{}, fmt.Errorf("%w: it exited before answering", ErrUpstreamUnavailable)
	case <-timer.C:
		s.giveUp(upKey, p, tk, fmt.Sprintf("agent-harness: no answer within %d ms", s.opts.CallTimeout.Milliseconds()))
		return Response{}, ErrNoAnswer
	case <-ctx.Done():
		s.giveUp(upKey, p, tk, "agent-harness: call abandoned")
		return Response{}, ctx.Err()
	}
}

// giveUp abandons a forwarded request: a request still waiting in the
// upstream writer's queue is withdrawn (the upstream never sees it), one
// the upstream may have read is cancelled.
func (s *session) giveUp(upKey string, p *pending, tk *ticket, reason string) {
	if s.upW.withdraw(tk) {
		s.reqs.unregister(upKey, p)
		return
	}
	s.reqs.abandon(upKey, p)
	s.cancelUpstream(p.upID, reason)
}

// answer is the forward's result for m: its error when it is the proxy's
// own answer in place of an unusable one, else the decoded answer.
func (f *forwarder) answer(m upMsg) (Response, error) {
	if m.err != nil {
		return Response{}, m.err
	}
	return f.decode(m), nil
}

// decode turns the upstream's answer into a Response whose Result is a
// sub-slice of the upstream's line.
func (f *forwarder) decode(m upMsg) Response {
	f.got = &m
	switch {
	case m.env.Result != nil:
		return Response{Result: m.env.Result}
	case m.env.Error != nil:
		var e RPCError
		if err := json.Unmarshal(m.env.Error, &e); err != nil {
			e = RPCError{Code: codeInternalError, Message: "agent-harness: the upstream sent an unreadable error object", Data: json.RawMessage(m.env.Error)}
		}
		f.rpcErr = &e
		return Response{Error: &e}
	default:
		f.rpcErr = &RPCError{Code: codeInternalError, Message: "agent-harness: the upstream sent a response without result or error"}
		return Response{Error: f.rpcErr}
	}
}

// cancelUpstream tells the upstream that a forwarded request (id: the
// upstream's side) was given up.
func (s *session) cancelUpstream(id []byte, reason string) {
	s.toUpstream(notificationLine(methodCancelled, map[string]any{
		"requestId": json.RawMessage(id),
		"reason":    reason,
	}))
}

// nextCallID numbers a tools/call: from Options.CallIDs when several
// sessions share one pipeline, else per session.
func (s *session) nextCallID() int64 {
	if s.opts.CallIDs != nil {
		return s.opts.CallIDs.Add(1)
	}
	return s.callSeq.Add(1)
}
