package relay

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/cuonztech/agent-harness/internal/mcpver"
)

// JSON-RPC error codes the proxy itself answers with.
const (
	codeParseError     = -32700
	codeInvalidRequest = -32600
	codeInternalError  = -32603
	// codeUpstreamGone answers non-tool requests once the upstream exited.
	codeUpstreamGone = -32000
)

// Texts of the proxy's own tool errors (TEAM fixed decisions).
const (
	textUpstreamUnavailable = "UPSTREAM_UNAVAILABLE: the upstream MCP server is not running (it exited). No call was forwarded."
	textUpstreamDiedInCall  = "UPSTREAM_UNAVAILABLE: the upstream MCP server exited before it answered this call. The outcome is unknown."
	textSessionEnded        = "Error: agent-harness is shutting down; this call was not forwarded to the upstream MCP server and did not execute."
)

func textNoAnswer(d time.Duration) string {
	return fmt.Sprintf("Error: the upstream MCP server did not answer within %d ms (agent-harness call timeout). The outcome is unknown.", d.Milliseconds())
}

// resultLine builds a response line carrying result for id.
func resultLine(id, result []byte) []byte {
	b := make([]byte, 0, len(id)+len(result)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"result":`...)
	b = append(b, result...)
	return append(b, "}\n"...)
}

// errorLine builds an error response line; a nil id becomes null.
func errorLine(id []byte, e *RPCError) []byte {
	if id == nil {
		id = []byte("null")
	}
	eb, err := json.Marshal(e)
	if err != nil { // only an invalid Data can fail
		eb, _ = json.Marshal(&RPCError{Code: e.Code, Message: e.Message})
	}
	b := make([]byte, 0, len(id)+len(eb)+40)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, id...)
	b = append(b, `,"error":`...)
	b = append(b, eb...)
	return append(b, "}\n"...)
}

// toolErrorResult is a CallToolResult with isError and one text item,
// valid for protocol revision version (mcpver.Complete).
func toolErrorResult(text, version string) json.RawMessage {
	b, _ := json.Marshal(map[string]any{
		"content": []map[string]string{{"type": "text", "text": text}},
		"isError": true,
	})
	return mcpver.Complete(b, version)
}

// notificationLine builds a notification line.
func notificationLine(method string, params any) []byte {
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
	return append(b, '\n')
}

// textUpstreamDiedInRequest answers the agent's non-tool requests that were
// waiting when the upstream exited.
const textUpstreamDiedInRequest = "UPSTREAM_UNAVAILABLE: the upstream MCP server exited before it answered this request."
