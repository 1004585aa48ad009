package judge

import (
	"encoding/json"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/state"
)

// EventKind is the kind of a ledger event.
type EventKind string

const (
	// EventCall: the agent sent a tools/call (an attempt). Sent before the
	// fault decision and before anything is forwarded.
	EventCall EventKind = "call"
	// EventForwarded: the call was sent to the upstream (it may execute from
	// now on). Absent for calls answered by an injected fault.
	EventForwarded EventKind = "forwarded"
	// EventAnswer: the proxy decided the answer the agent gets for a call.
	EventAnswer EventKind = "answer"
	// EventEnd: the session ended; calls still without an answer are unknown.
	EventEnd EventKind = "end"
	// EventDelivered: an injected answer was handed to the agent (after the
	// report file showed it). Its Time is when the agent can first know of
	// the fault, so a retry_after wait and the time waited after a failure
	// are measured from it (docs: F2 deadlines).
	EventDelivered EventKind = "delivered"
	// EventTools: the upstream's tool list was (re-)read; Tools names its
	// write tools. A call forwarded earlier to a tool that was not listed
	// then, and now is a write, was a write the judge could not judge.
	EventTools EventKind = "tools"
	// EventSession: an agent session opened (its Session id and Transport);
	// the report file's sessions list is made of these.
	EventSession EventKind = "session"
	// EventDroppedCall: the agent sent a tools/call without an id (a
	// notification); the proxy did not forward it (Tool names the tool).
	// Nothing was executed, but what the agent meant to do is unknown: the
	// run can no longer PASS.
	EventDroppedCall EventKind = "dropped-call"
	// EventState: a state probe's snapshot (State; behaviour §16), taken
	// before the upstream started, after the session ended, or after a
	// write's answer (--state-every-write).
	EventState EventKind = "state"
)

// Outcome is the outcome of one answer as the pipeline reports it
// (EventAnswer; behaviour §4.2). It is the event vocabulary; the report
// shows attempts as report.AttemptOutcome and operations as
// report.OperationOutcome, types of their own.
type Outcome string

const (
	// Executed: reached the upstream, which answered a result without isError
	// (also F1, where the agent only saw a timeout).
	Executed Outcome = "executed"
	// InjectedNotExecuted: the proxy answered with an injected fault and did
	// not forward the call.
	InjectedNotExecuted Outcome = "injected-not-executed"
	// UpstreamNotExecuted: forwarded, and the upstream's HTTP status
	// proves no tool ran (400, 401, 403, 405, 415, 429, 404 without a
	// session id; behaviour §8.2): not executed, like an injected fault,
	// but not injected.
	UpstreamNotExecuted Outcome = "upstream-not-executed"
	// UpstreamRejected: the upstream answered with isError: true.
	UpstreamRejected Outcome = "upstream-rejected"
	// Incomplete: forwarded, and the upstream asked for input (MCP
	// 2026-07-28 resultType "input_required"), but the agent never sent the
	// follow-up that completes the call: the tool did not complete, so it
	// did not execute (behaviour §4.12). No failure: the agent saw the
	// upstream's own request for input.
	Incomplete Outcome = "incomplete"
	// Unknown: no usable answer (60 s timeout, upstream crash or gone, a
	// JSON-RPC error from upstream, still in flight at session end).
	Unknown Outcome = "unknown"
	// UnknownTool: the tool was not in the upstream's list; not judged.
	UnknownTool Outcome = "unknown-tool"
)

// Event is one entry of the append-only ledger the judge consumes. Events
// are self-contained so a recorded list can be judged again offline.
type Event struct {
	Kind EventKind `json:"kind"`
	// Time comes from the pipeline's injected clock.
	Time time.Time `json:"time"`
	// Call is the proxy's sequence number of the call (EventCall,
	// EventForwarded, EventAnswer).
	Call int64 `json:"call,omitempty"`

	// EventCall fields.
	Tool  string         `json:"tool,omitempty"`
	Class classify.Class `json:"class,omitempty"`
	// Arguments is the raw params.arguments JSON as the agent sent it.
	Arguments json.RawMessage `json:"arguments,omitempty"`
	// AcceptsKey is true when the tool's input schema has a key field
	// (for WRITE_WITHOUT_KEY).
	AcceptsKey bool `json:"acceptsKey,omitempty"`
	// Idempotent: the tool is an idempotent write (behaviour §4.8); repeats
	// of its operations are no violation.
	Idempotent bool `json:"idempotent,omitempty"`
	// Session names the agent session the call came from (behaviour §8:
	// "s1", "s2", …); empty when the run has no session names.
	Session string `json:"session,omitempty"`
	// Transport is the session's transport ("stdio", "http"; EventSession).
	Transport string `json:"transport,omitempty"`
	// OwnUpstream: the session has an upstream process of its own
	// (EventSession; --upstream-per-session), so its calls and another
	// session's reach different backends' state.
	OwnUpstream bool `json:"ownUpstream,omitempty"`

	// Tools are the write tools of a listing (EventTools).
	Tools []string `json:"tools,omitempty"`

	// EventAnswer fields.
	Outcome Outcome `json:"outcome,omitempty"`
	// Scenario is the scenario applied to this call ("F1".."F5", "chaos",
	// a plugin fault), empty when none was. A non-empty Scenario means the
	// scenario fired.
	Scenario string `json:"scenario,omitempty"`
	// Fault is the injected fault kind the agent saw ("timeout",
	// "rate_limit", "truncated_json", "server_error", "chaos", plugin kinds);
	// empty when the agent got the upstream's own answer.
	Fault string `json:"fault,omitempty"`
	// RetryAfterMs is the retry_after announced by an injected 429.
	RetryAfterMs int64 `json:"retryAfterMs,omitempty"`
	// ResponseDigest identifies the upstream's result bytes (for
	// duplicate.upstreamResponsesIdentical); empty when there was none.
	ResponseDigest string `json:"responseDigest,omitempty"`
	// Detail is a short human note (e.g. "upstream timeout after 60s").
	Detail string `json:"detail,omitempty"`
	// TransportFault (EventDelivered): the injected answer was delivered
	// at the transport level — a dropped connection, a cut body or
	// stream, an HTTP 429 or 500 (--fault-layer http) — where the agent's
	// client library, not its model, meets it first (duplicate.resentBy).
	TransportFault bool `json:"transportFault,omitempty"`
	// RequestSeq (EventCall) is the call's number among its session's
	// requests, pings aside, in the order the relay read them
	// (relay.ToolCall.RequestSeq); 0 when unknown. A call whose number is
	// one more than another's is the session's next request after it
	// (duplicate.resentBy).
	RequestSeq int64 `json:"requestSeq,omitempty"`

	// Raw data the judge ignores, for the trace (behaviour §7): the agent's
	// tools/call params (EventCall), the result the upstream or the fault
	// answered (EventAnswer), and the classified tool list with the raw
	// definitions (EventTools).
	Params  json.RawMessage  `json:"-"`
	Result  json.RawMessage  `json:"-"`
	Listing []classify.Entry `json:"-"`

	// State is the snapshot of an EventState.
	State *state.Snapshot `json:"state,omitempty"`
}
