// Package fault holds the fault interface every scenario implements — the
// built-in F1–F5 and chaos here, WASM fault plugins in host — and the
// built-in implementations (behaviour §3).
package fault

import (
	"encoding/json"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// Call is what a fault sees of one tools/call from the agent.
type Call struct {
	// ID is the proxy's sequence number of the call (1, 2, …), unique per session.
	ID int64
	// Tool is the called tool's name.
	Tool string
	// Class is the tool's class; Unknown when the upstream did not list it.
	Class classify.Class
	// Idempotent: a write tool whose repeats have no additional effect
	// (behaviour §4.8). Scenarios fire only on writes that are not idempotent;
	// chaos hits every read and write.
	Idempotent bool
	// Arguments is the raw JSON of params.arguments (nil when absent).
	Arguments json.RawMessage
	// Time is when the proxy received the call (from the injected clock).
	Time time.Time
	// OutputSchema is true when the tool's listing declares an
	// outputSchema: clients then validate the results of its calls
	// (behaviour §3.3, see Deliver).
	OutputSchema bool
	// ProtocolVersion is the MCP protocol version of the session (or of
	// the request, for stateless SEP-2575 clients); empty when unknown.
	ProtocolVersion string
}

// ActionKind says what the pipeline does with a call.
type ActionKind int

const (
	// Pass forwards the call and returns the upstream's answer unchanged.
	Pass ActionKind = iota
	// Inject answers the agent with Result without forwarding (nothing executes).
	Inject
	// ForwardReplace forwards the call (it really executes) and, if the
	// upstream executed it (a result without isError), answers the agent with
	// Result instead. Otherwise the agent gets the upstream's real answer and
	// the fault is told so through Settle.
	ForwardReplace
)

// Action is a fault's decision for one call.
type Action struct {
	Kind ActionKind
	// Result is the MCP tool result (a CallToolResult JSON object) for Inject
	// and ForwardReplace.
	Result json.RawMessage
	// Scenario names the scenario that was applied to this call ("F1", "F4",
	// "chaos", a plugin fault name). Empty when no scenario applied: the call
	// did not consume anything. F4 applies with Kind Pass.
	Scenario string
	// Fault is the injected fault kind the agent sees ("timeout",
	// "rate_limit", "truncated_json", "server_error", "chaos", plugin kinds);
	// empty when the agent gets the upstream's own answer.
	Fault string
	// RetryAfter is the retry_after announced by a 429 (F2), else zero.
	RetryAfter time.Duration
	// Delay is waited by the host before the action is carried out (before
	// forwarding or injecting).
	Delay time.Duration
	// DelayAfter is waited by the host after the upstream answered, before
	// the answer reaches the agent (a real late response).
	DelayAfter time.Duration
}

// Fault decides, per call, whether a fault is injected. Implementations must
// be safe for concurrent use: two writes arriving at once must not both be
// "the first write".
type Fault interface {
	// Name is the scenario name selected with --scenario (or "chaos").
	Name() string
	// Decide is called for every tools/call before it is forwarded.
	Decide(c Call) Action
}

// Settler is implemented by faults whose consumption depends on the
// upstream's answer: Settle reports whether a ForwardReplace (or Pass with a
// Scenario) call was executed by the upstream. F1 re-arms when the upstream
// rejected the call (isError) or gave no answer.
type Settler interface {
	Settle(c Call, a Action, executed bool)
}
