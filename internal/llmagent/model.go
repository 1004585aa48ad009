// Package llmagent is the built-in LLM agent of `agent-harness agent
// --model` (SPEC §18.1, docs/agent.md): an MCP client whose decisions come
// from a model — a Chat Completions or Messages server through its
// official SDK, or a deterministic script — driven through one loop:
// model → tool calls through MCP → tool results → model, turn by turn,
// with every message recorded in a transcript.
package llmagent

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Model is one provider's side of the loop: it answers the conversation
// so far with text, tool calls or both.
type Model interface {
	// Call sends the request and returns the model's answer. A provider's
	// HTTP error is a *ProviderError, so the loop can retry 429 and 5xx.
	Call(ctx context.Context, req *Request) (*Response, error)
	// ErrorFlag reports whether the provider has a structured isError
	// marker on a tool result (Anthropic's is_error); without one the
	// marker is a text prefix.
	ErrorFlag() bool
}

// Request is one model call: the whole conversation and the tools.
type Request struct {
	Messages []Message // the first may be the system prompt (role "system")
	Tools    []Tool    // with the names the model sees
	Params   Params
}

// Params are the optional sampling parameters; nil = not sent.
type Params struct {
	Temperature *float64
	Seed        *int64
	MaxTokens   *int64
}

// Tool is one tool as the model sees it.
type Tool struct {
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	InputSchema map[string]any `json:"inputSchema"`
}

// Response is the model's answer to one call.
type Response struct {
	Text         string
	ToolCalls    []ToolCall
	InputTokens  int64
	OutputTokens int64
}

// ToolCall is one tool call of the model, with the name it used and its
// arguments as the text it sent.
type ToolCall struct {
	ID        string `json:"id"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

// Message is one message as the model saw it. Tool results carry, for the
// transcript only, the MCP tool that ran and its answer.
type Message struct {
	Role       string     `json:"role"` // system, user, assistant, tool
	Content    string     `json:"content"`
	ToolCalls  []ToolCall `json:"toolCalls,omitempty"`
	ToolCallID string     `json:"toolCallId,omitempty"`
	// IsError is the structured marker the model received (Anthropic's
	// is_error: true); a Chat Completions model gets a prefix instead.
	IsError bool `json:"isError,omitempty"`
	// MCPTool is the MCP name of the tool called ("" when it was not
	// called: an unknown name, invalid arguments, the step limit).
	MCPTool string `json:"mcpTool,omitempty"`
	// MCP is what the MCP server answered: the CallToolResult, or
	// {"error": "..."} for a JSON-RPC error, a timeout or a closed session.
	MCP any `json:"mcp,omitempty"`
}

// ProviderError is an HTTP error answer of the model's server.
type ProviderError struct {
	Status     int
	RetryAfter time.Duration // from a Retry-After header; 0 = none
	Msg        string
}

func (e *ProviderError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.Status, e.Msg) }

// retryable reports whether the loop retries an error: the provider's 429
// and 5xx (its own faults, never the proxy's).
func retryable(err error) (*ProviderError, bool) {
	var pe *ProviderError
	if errors.As(err, &pe) && (pe.Status == 429 || pe.Status >= 500) {
		return pe, true
	}
	return nil, false
}
