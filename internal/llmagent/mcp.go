package llmagent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/refagent"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Connect starts or reaches the MCP server of e as refagent does: a stdio
// command (its stderr to stderr) or a Streamable HTTP URL.
func Connect(ctx context.Context, e refagent.Entry, stderr io.Writer) (*mcp.ClientSession, error) {
	var transport mcp.Transport
	if e.URL != "" {
		transport = &mcp.StreamableClientTransport{Endpoint: e.URL}
	} else {
		cmd := exec.Command(e.Command, e.Args...)
		cmd.Env = os.Environ()
		for k, v := range e.Env {
			cmd.Env = append(cmd.Env, k+"="+v)
		}
		cmd.Stderr = stderr
		transport = &mcp.CommandTransport{Command: cmd}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "agent-harness-llm-agent", Version: "1"}, nil)
	cs, err := client.Connect(ctx, transport, nil)
	if err != nil {
		return nil, fmt.Errorf("connecting to server %q: %w", e.Name, err)
	}
	return cs, nil
}

// auditPrefix is the namespace of the proxy's own audit tools
// (cuonztech__get_report, cuonztech__get_score; behaviour §5.7): they tell
// the agent the truth, so they are never offered to the model.
const auditPrefix = "cuonztech__"

// listTools lists the server's tools (every page), without audit tools.
func listTools(ctx context.Context, cs *mcp.ClientSession) ([]*mcp.Tool, error) {
	var tools []*mcp.Tool
	for t, err := range cs.Tools(ctx, nil) {
		if err != nil {
			return nil, fmt.Errorf("listing the tools: %w", err)
		}
		if !strings.HasPrefix(t.Name, auditPrefix) {
			tools = append(tools, t)
		}
	}
	return tools, nil
}

// schemaMap is a tool's inputSchema as a JSON object ({"type":"object"}
// when it is missing or not an object).
func schemaMap(schema any) map[string]any {
	var m map[string]any
	if b, err := json.Marshal(schema); err == nil {
		_ = json.Unmarshal(b, &m)
	}
	if m == nil {
		m = map[string]any{"type": "object"}
	}
	return m
}

// toolAnswer is what one MCP call gave: the text for the model, whether it
// is an error, and the answer for the transcript.
type toolAnswer struct {
	text    string
	isError bool
	mcp     any
}

// ToolCallIDMeta is the key of the request's _meta under which the agent
// sends its model's tool-call id (SPEC §20.2, behaviour §9.5): a new id is
// the model's re-send, the same id a transport's retry.
const ToolCallIDMeta = "agent-harness/toolCallId"

// callTool calls name through MCP, bounded by timeout, and turns every
// outcome — result, isError, JSON-RPC error, timeout, closed session —
// into a tool answer; it never fails. id is the model's tool-call id,
// sent in _meta[ToolCallIDMeta].
func callTool(ctx context.Context, cs *mcp.ClientSession, id, name string, args json.RawMessage, timeout time.Duration) toolAnswer {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	params := &mcp.CallToolParams{Name: name, Arguments: args}
	if id != "" {
		params.Meta = mcp.Meta{ToolCallIDMeta: id}
	}
	res, err := cs.CallTool(cctx, params)
	switch {
	case err != nil && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded):
		msg := fmt.Sprintf("Error: the MCP server did not answer within %s (the tool call timed out). The outcome is unknown.", timeout)
		return toolAnswer{text: msg, isError: true, mcp: map[string]string{"error": "timed out after " + timeout.String()}}
	case err != nil && ctx.Err() != nil:
		// The agent is stopping (a signal): the model never sees this.
		return toolAnswer{text: "Error: interrupted before the MCP server answered.", isError: true, mcp: map[string]string{"error": "interrupted"}}
	case err != nil:
		msg := escape.LineBreaks(err.Error())
		return toolAnswer{text: "Error: " + msg, isError: true, mcp: map[string]string{"error": msg}}
	}
	return toolAnswer{text: resultText(res), isError: res.IsError, mcp: res}
}

// resultText is a CallToolResult's content as text: the text items joined
// by newlines, other items described, the structured content when there is
// no text.
func resultText(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			parts = append(parts, c.Text)
		case *mcp.ImageContent:
			parts = append(parts, fmt.Sprintf("[image %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *mcp.AudioContent:
			parts = append(parts, fmt.Sprintf("[audio %s, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			parts = append(parts, fmt.Sprintf("[resource link %s]", c.URI))
		case *mcp.EmbeddedResource:
			if c.Resource != nil && c.Resource.Text != "" {
				parts = append(parts, c.Resource.Text)
			} else if c.Resource != nil {
				parts = append(parts, fmt.Sprintf("[resource %s, not shown]", c.Resource.URI))
			}
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	return strings.Join(parts, "\n")
}

// capText cuts s to at most limit bytes on a rune boundary and says so.
func capText(s string, limit int) (string, bool) {
	if len(s) <= limit {
		return s, false
	}
	cut := escape.Cut(s, limit)
	return s[:cut] + fmt.Sprintf("\n[agent-harness: the tool result was %d bytes; the first %d are shown]", len(s), cut), true
}
