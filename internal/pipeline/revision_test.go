package pipeline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/internal/mcpschema"
	"github.com/cuonztech/agent-harness/internal/mcpver"
)

// TestAuditToolResultsValidForRevision: every answer of the audit tools
// (the score with its structuredContent, the report as markdown and as
// JSON, and their argument errors), as the relay hands it to the agent
// (mcpver.Complete for the call's revision, TestRelayOwnResultsValidForRevision),
// is a valid CallToolResult of every vendored revision's published schema.
func TestAuditToolResultsValidForRevision(t *testing.T) {
	h := newHarness(t, nil, nil)
	calls := []struct{ tool, args string }{
		{ScoreTool, ``}, {ReportTool, ``}, {ReportTool, `{"format":"markdown"}`}, {ReportTool, `{"format":"json"}`},
		{ReportTool, `{"format":"html"}`}, {ReportTool, `[1]`},
	}
	for _, rev := range mcpschema.Revisions {
		for _, c := range calls {
			res, err := h.p.LocalTool(context.Background(), c.tool, json.RawMessage(c.args))
			if err != nil {
				t.Fatalf("%s %s: %v", c.tool, c.args, err)
			}
			got := mcpver.Complete(res, rev)
			if v := mcpschema.Check(rev, "CallToolResult", got); len(v) > 0 {
				t.Errorf("%s %s in a %s session: %q\n%s", c.tool, c.args, rev, v, got)
			}
		}
	}
}

// TestAuditToolDefinitionsValidForRevision: the audit tools' tools/list
// entries (appended to the upstream's last page) are valid Tool
// definitions of every vendored revision.
func TestAuditToolDefinitionsValidForRevision(t *testing.T) {
	for _, rev := range mcpschema.Revisions {
		for _, tool := range auditTools {
			if v := mcpschema.Check(rev, "Tool", tool); len(v) > 0 {
				t.Errorf("%s: %q\n%s", rev, v, tool)
			}
		}
	}
}
