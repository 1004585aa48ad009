package pipeline

import (
	"bytes"
	"encoding/json"
	"sync"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// Multi-round-trip requests (MCP 2026-07-28, behaviour §4.12): a
// tools/call answered with resultType "input_required" has not completed;
// the agent sends the call again with params.inputResponses and the
// result's requestState echoed in params.requestState. The first leg and
// its follow-ups are one attempt: the judge sees the first leg's call and
// forwarding, then the completing leg's answer under the first leg's call
// number.

// openLeg is a call the upstream answered input_required and whose
// follow-up has not arrived yet.
type openLeg struct {
	// call is the judge's call number of the attempt (the first leg's).
	call int64
	tool string
	// state is the result's requestState; hasState false when it had none.
	state    string
	hasState bool
	// args are the call's arguments in canonical form (the raw bytes when
	// they have none).
	args []byte
	// result is the upstream's input_required result, for the answer the
	// session end records when no follow-up came.
	result json.RawMessage
}

// rounds holds the open legs of a pipeline, oldest first.
type rounds struct {
	mu   sync.Mutex
	open []openLeg
}

// isFollowUp reports whether a tools/call's params carry inputResponses or
// requestState: the agent answers an earlier input_required result.
func isFollowUp(params []byte) bool {
	if len(params) == 0 || params[0] != '{' {
		return false
	}
	if _, _, ok := wire.Lookup(params, "inputResponses"); ok {
		return true
	}
	_, _, ok := wire.Lookup(params, "requestState")
	return ok
}

// requestState is the string requestState member of obj (a result or a
// call's params); ok is false when there is none or it is not a string.
func requestState(obj []byte) (string, bool) {
	if len(obj) == 0 || obj[0] != '{' {
		return "", false
	}
	v, _, ok := wire.Lookup(obj, "requestState")
	if !ok {
		return "", false
	}
	return wire.Unquote(v)
}

// canonicalArgs is what follow-up matching compares: the arguments in
// canonical JSON (key order and number spelling do not matter), or the raw
// bytes when they are not valid JSON.
func canonicalArgs(args []byte) []byte {
	if len(args) == 0 {
		return []byte("{}")
	}
	if c, err := canon.Canonical(args); err == nil {
		return c
	}
	return args
}

// add records the first leg of call (judge call number id) answered with
// the input_required result.
func (r *rounds) add(id int64, call *relay.ToolCall, result json.RawMessage) {
	st, has := requestState(result)
	l := openLeg{call: id, tool: call.Tool, state: st, hasState: has, args: canonicalArgs(call.Arguments), result: result}
	r.mu.Lock()
	r.open = append(r.open, l)
	r.mu.Unlock()
}

// take removes and returns the open leg a follow-up call continues: the
// oldest one of the same tool whose requestState it echoes (both without
// one when the result had none) and whose arguments are canonically
// equal. ok is false for a call that is no follow-up or matches no leg: it
// is an attempt of its own.
//
// The arguments must match too, so a follow-up is never joined to a leg of
// another operation (a server may send the same requestState for every
// call): a follow-up that matches nothing is judged as an attempt of its
// own and the leg, never followed up, as not executed — the same count of
// executions.
func (r *rounds) take(call *relay.ToolCall) (openLeg, bool) {
	if !isFollowUp(call.Params) {
		return openLeg{}, false
	}
	st, has := requestState(call.Params)
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.open) == 0 {
		return openLeg{}, false
	}
	args := canonicalArgs(call.Arguments)
	for i, l := range r.open {
		if l.tool == call.Tool && l.hasState == has && l.state == st && bytes.Equal(l.args, args) {
			r.open = append(r.open[:i], r.open[i+1:]...)
			return l, true
		}
	}
	return openLeg{}, false
}

// drain removes and returns every open leg.
func (r *rounds) drain() []openLeg {
	r.mu.Lock()
	defer r.mu.Unlock()
	l := r.open
	r.open = nil
	return l
}
