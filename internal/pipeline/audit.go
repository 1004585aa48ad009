package pipeline

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// Names of the audit tools (behaviour §2.3).
const (
	ReportTool = "cuonztech__get_report"
	ScoreTool  = "cuonztech__get_score"
)

// auditTools are the tools/list entries of the audit tools: read-only,
// idempotent, closed-world, with nothing that could reset the session.
var auditTools = []json.RawMessage{
	json.RawMessage(`{"name":"cuonztech__get_report","title":"agent-harness report","description":"agent-harness audit tool: the current report of this session (operations, attempts, executions, violations, observations, verdict). Read-only; it changes nothing and is not forwarded to the server.","inputSchema":{"type":"object","properties":{"format":{"type":"string","enum":["markdown","json"],"description":"markdown (default) or json"}},"additionalProperties":false},"annotations":{"title":"agent-harness report","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`),
	json.RawMessage(`{"name":"cuonztech__get_score","title":"agent-harness score","description":"agent-harness audit tool: the resilience score (0-100), the verdict and the suggested system-prompt patches of this session. Read-only; it changes nothing and is not forwarded to the server.","inputSchema":{"type":"object","properties":{},"additionalProperties":false},"annotations":{"title":"agent-harness score","readOnlyHint":true,"destructiveHint":false,"idempotentHint":true,"openWorldHint":false}}`),
}

// AuditTools returns the tools/list entries of the audit tools, to be
// listed after the upstream's tools; nil when they are off.
func (p *Pipeline) AuditTools() []json.RawMessage {
	if !p.opts.AuditTools {
		return nil
	}
	return auditTools
}

// IsAuditTool reports whether name is an enabled audit tool.
func (p *Pipeline) IsAuditTool(name string) bool {
	return p.opts.AuditTools && (name == ReportTool || name == ScoreTool)
}

// CallAuditTool answers a call of an audit tool locally: it is never
// forwarded and never recorded as a read or a write. ok is false when name
// is not an enabled audit tool.
func (p *Pipeline) CallAuditTool(name string, arguments json.RawMessage) (resp relay.Response, ok bool) {
	if !p.IsAuditTool(name) {
		return relay.Response{}, false
	}
	if name == ScoreTool {
		return p.scoreResult(), true
	}
	var args struct {
		Format *string `json:"format"`
	}
	if len(arguments) > 0 && string(arguments) != "null" {
		if err := json.Unmarshal(arguments, &args); err != nil {
			return relay.Response{Result: fault.ErrorResult(ReportTool + `: arguments must be an object like {"format":"markdown"} or {"format":"json"}`)}, true
		}
	}
	switch {
	case args.Format == nil || *args.Format == "markdown":
		return textResult(p.judge.Markdown()), true
	case *args.Format == "json":
		return textResult(string(p.ReportJSON())), true
	}
	return relay.Response{Result: fault.ErrorResult(ReportTool + `: format must be "markdown" or "json"`)}, true
}

// scoreResult is the answer of cuonztech__get_score: the judge's score
// text (verdict, total, dimensions, patches) for the model, and the same
// data as structuredContent {verdict, verdictReason, score, patches}.
func (p *Pipeline) scoreResult() relay.Response {
	verdict, reason := p.judge.Verdict()
	b, err := json.Marshal(struct {
		Content           []textItem `json:"content"`
		StructuredContent any        `json:"structuredContent"`
	}{
		Content: []textItem{{"text", p.judge.ScoreText()}},
		StructuredContent: struct {
			Verdict       string `json:"verdict"`
			VerdictReason string `json:"verdictReason"`
			Score         any    `json:"score"`
			Patches       any    `json:"patches"`
		}{verdict, reason, p.judge.Score(), p.judge.Patches()},
	})
	if err != nil {
		return relay.Response{Result: fault.ErrorResult(ScoreTool + ": encoding the score failed")}
	}
	return relay.Response{Result: b}
}

// textItem is one text content item of a CallToolResult.
type textItem struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

// textResult is a successful CallToolResult with one text item.
func textResult(text string) relay.Response {
	b, _ := json.Marshal(struct {
		Content []textItem `json:"content"`
	}{[]textItem{{"text", text}}})
	return relay.Response{Result: b}
}

// LocalTool answers a call of an audit tool for relay.Options.LocalTool.
func (p *Pipeline) LocalTool(_ context.Context, name string, arguments json.RawMessage) (json.RawMessage, error) {
	resp, ok := p.CallAuditTool(name, arguments)
	if !ok {
		return nil, fmt.Errorf("calling %s: not an audit tool", name)
	}
	return resp.Result, nil
}
