package relay

import (
	"context"
	"encoding/json"
	"io"
	"sync/atomic"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// Defaults of Options.
const (
	// DefaultCallTimeout is how long a forwarded request waits for the
	// upstream's answer (behaviour §13).
	DefaultCallTimeout = 60 * time.Second
	// DefaultStopGrace is each wait of the upstream shutdown sequence:
	// stdin closed → wait → SIGTERM → wait → SIGKILL.
	DefaultStopGrace = 2 * time.Second
)

// Options configure Run. Only Upstream is required.
type Options struct {
	// Upstream is how the session reaches the upstream MCP server: a
	// CommandUpstream (a process on stdio), a ConnUpstream (a
	// message-level Conn: Streamable HTTP, a shared process's session) or
	// an IOUpstream (an in-process stream). Required.
	Upstream Upstream

	// Stdin and Stdout are the agent's side of the session (newline-delimited
	// JSON-RPC); Stderr receives the proxy's log lines and the upstream's
	// stderr, each line prefixed "[agent-harness] ".
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Agent, when set, is the agent's side as a message-level Conn (an HTTP
	// session) instead of Stdin/Stdout. Its ReadMessage returning io.EOF
	// ends the session as the end of stdin does. An Agent that implements
	// FaultConn gets the answers the pipeline marked as faults
	// (Response.Fault) through WriteFault.
	Agent Conn

	// Classify classifies one upstream tool (flags → plugins → annotations
	// → name patterns). Nil: every tool is unclassified.
	Classify func(classify.Tool) classify.Result
	// KeyField reports whether a top-level argument name is an idempotency
	// key field (canon.KeyFields.Match). Nil: no key fields.
	KeyField func(name string) bool
	// KeyFieldNames are the configured key-field names, shown in the
	// startup table when no tool has a key field.
	KeyFieldNames []string

	// Session names this agent session in ToolCall.Session (the report's
	// sessions, behaviour §8).
	Session string
	// CallIDs, when set, numbers the tools/calls (ToolCall.ID) instead of
	// the session's own counter: several sessions judged by one pipeline
	// share it, so their call ids never collide.
	CallIDs *atomic.Int64

	// Pipeline sees every tools/call; nil means PassThrough.
	Pipeline Pipeline

	// ExtraTools are tool definitions (JSON objects with a "name") that the
	// proxy appends to the last page of every tools/list result; calls to
	// them are answered by LocalTool and never reach the upstream or the
	// pipeline. An upstream tool of the same name wins.
	ExtraTools []json.RawMessage
	// LocalTool answers a call to one of ExtraTools with a CallToolResult
	// object; an error becomes a tool error for the agent.
	LocalTool func(ctx context.Context, name string, args json.RawMessage) (json.RawMessage, error)

	// OnTools is called with the classified tool list after the startup
	// listing and after every re-listing (notifications/tools/list_changed).
	OnTools func(tools []ToolInfo)
	// OnSessionEnd is called once when the session ends (agent EOF, signal,
	// broken pipe), before the upstream is stopped; in-flight calls still
	// complete while it runs. Its context is not cancelled by the signal.
	OnSessionEnd func(ctx context.Context)
	// OnServed is called once, at the agent's first request that is not
	// server/discover or ping (an initialize, a listing, a call …): from
	// then on the session is more than a version probe (behaviour §5.2).
	// Nil: not told.
	OnServed func()

	// Now, when set, stamps each tools/call with the time the relay read it
	// (ToolCall.ReadAt). It must be the pipeline's clock, so that the judge
	// compares times of one source. Nil: calls are not stamped.
	Now func() time.Time

	// Halt, when closed, stops every further message to the agent: the
	// proxy is stopping after a failure the agent must not see answered
	// (the report file could not be written). Nil: never.
	Halt <-chan struct{}

	// CallTimeout bounds the wait for each upstream answer (default 60 s).
	CallTimeout time.Duration
	// StopGrace is each wait of the shutdown sequence (default 2 s).
	StopGrace time.Duration

	// SwallowCancel (--on-cancel swallow): the agent's cancellation of a
	// tools/call in flight (notifications/cancelled, or on 2026-07-28
	// HTTP a closed stream) is not forwarded to the upstream, which then
	// runs the call to its end, as a backend that commits anyway does. The
	// call is cancelled for the agent all the same: its answer is judged,
	// not delivered. False (the default, forward) forwards it.
	SwallowCancel bool

	// Quiet (--quiet) leaves out the startup table and the notes on tool
	// list changes; their WARNING lines, every other warning and error,
	// and the upstream's own stderr are still written.
	Quiet bool
}

// ToolInfo is how the proxy classified one upstream tool: the entry of the
// startup table and of the report's toolClassification.
type ToolInfo = classify.Entry

func (o Options) withDefaults() Options {
	if o.Pipeline == nil {
		o.Pipeline = PassThrough{}
	}
	if o.CallTimeout <= 0 {
		o.CallTimeout = DefaultCallTimeout
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.Classify == nil {
		o.Classify = func(classify.Tool) classify.Result {
			return classify.Result{Class: classify.Unclassified, Reason: "no classifier configured"}
		}
	}
	if o.KeyField == nil {
		o.KeyField = func(string) bool { return false }
	}
	if o.Stderr == nil {
		o.Stderr = io.Discard
	}
	return o
}
