package relay

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"errors"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// ToolCall is one tools/call request from the agent as the pipeline sees it.
type ToolCall struct {
	// ID is the proxy's own sequence number of the call (1, 2, …).
	ID int64
	// Tool is params.name.
	Tool string
	// Class is the tool's class; classify.Unknown when the upstream did not
	// list it.
	Class classify.Class
	// AcceptsKey is true when the tool's input schema has a key field.
	AcceptsKey bool
	// Idempotent: the tool is an idempotent write (behaviour §4.8).
	Idempotent bool
	// Arguments is the raw params.arguments JSON (nil when absent).
	Arguments json.RawMessage
	// Params is the raw params object of the request, unchanged.
	Params json.RawMessage
	// ReadAt is when the relay read the call from the agent (Options.Now);
	// zero when Options.Now is nil.
	ReadAt time.Time
	// OutputSchema is true when the tool's listing declares an
	// outputSchema (behaviour §3.3).
	OutputSchema bool
	// Session names the agent session of the call (Options.Session).
	Session string
	// ProtocolVersion is the MCP protocol version of the call: its
	// SEP-2575 _meta version, else the one the session's initialize
	// negotiated; empty when unknown.
	ProtocolVersion string
	// RequestSeq is the call's number among the session's requests in
	// the order the relay read them, pings aside (initialize included; 1
	// for the first): a call whose number is one more than another's is
	// the session's next request after it.
	RequestSeq int64
}

// Response is what the agent gets for a tools/call: exactly one of Result (a
// raw CallToolResult object) or Error (a JSON-RPC error object).
type Response struct {
	Result json.RawMessage
	Error  *RPCError
	// Fault, when not empty, marks Result as an injected fault of that
	// kind ("timeout", "rate_limit", …) that an agent transport may
	// deliver at its own layer (FaultConn); RetryAfter is a rate_limit's.
	Fault      string
	RetryAfter time.Duration
}

// RPCError is a JSON-RPC error object; Data stays raw.
type RPCError struct {
	Code    int64           `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

// OutcomeMetaKey is the _meta member by which a result the proxy itself
// made for a call whose outcome is unknown (an upstream HTTP error that
// does not prove the call never ran, an expired upstream session) says so:
// {"isError": true, "_meta": {"agent-harness/outcome": "unknown"}}. The
// judge then counts the attempt as unknown, not as rejected. An upstream
// that sent it itself only makes its own answer count as unknown, the
// conservative reading.
const OutcomeMetaKey = "agent-harness/outcome"

// NotExecutedMark is the value of _meta[OutcomeMetaKey] by which a result
// the proxy itself made for a tools/call that provably never reached a
// tool (an upstream HTTP status such as 429, behaviour §8.2) says so. It
// carries a random secret of this process, so an upstream cannot forge it
// to make its own executed answer count as not executed; the pipeline
// removes the mark before the agent, the trace or the report see the
// result.
var NotExecutedMark = "not-executed/" + rand.Text()

// Forward sends the call to the upstream and returns its answer. It returns
// ErrNoAnswer when the upstream did not answer in time and
// ErrUpstreamUnavailable when the upstream is gone; in both cases the outcome
// is unknown.
type Forward func(ctx context.Context) (Response, error)

var (
	// ErrNoAnswer: the upstream did not answer within the call timeout.
	ErrNoAnswer = errors.New("no answer from upstream")
	// ErrUpstreamUnavailable: the upstream process is gone.
	ErrUpstreamUnavailable = errors.New("upstream unavailable")
	// ErrWithheld: the proxy is stopping after a failure that must reach
	// no agent (the report file could not be written); the relay sends no
	// answer for the call.
	ErrWithheld = errors.New("answer withheld: the proxy is stopping")
	// ErrSessionEnded: the proxy is shutting down (agent EOF, a signal); the
	// call was not forwarded. A pipeline returns it for calls that arrive
	// after the session's final report was begun.
	ErrSessionEnded = errors.New("session ended")
)

// Pipeline sees every tools/call of the agent. It may call forward (at most
// once), answer by itself, or forward and replace the answer; it observes the
// outcome. The returned Response is what the agent receives; an error
// returned here is turned into a tool error for the agent.
type Pipeline interface {
	HandleCall(ctx context.Context, call *ToolCall, forward Forward) (Response, error)
}

// PassThrough is the default pipeline: every call is forwarded unchanged.
type PassThrough struct{}

// HandleCall forwards the call.
func (PassThrough) HandleCall(ctx context.Context, _ *ToolCall, forward Forward) (Response, error) {
	return forward(ctx)
}

// DroppedCall is a tools/call the relay did not forward and the pipeline
// never saw: one without an id (a notification), which cannot be answered
// but which a lenient server would execute.
type DroppedCall struct {
	// Tool is params.name ("" when absent or not a string).
	Tool string
}

// DroppedCallObserver is implemented by a Pipeline that wants to know of
// the calls the relay dropped (so the report can count them).
type DroppedCallObserver interface {
	DroppedCall(c DroppedCall)
}
