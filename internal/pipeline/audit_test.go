package pipeline

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestAuditToolDefinitions(t *testing.T) {
	h := newHarness(t, nil, nil)
	tools := h.p.AuditTools()
	if len(tools) != 2 {
		t.Fatalf("%d audit tools, want 2", len(tools))
	}
	for i, want := range []string{ReportTool, ScoreTool} {
		var def struct {
			Name        string
			InputSchema map[string]any
			Annotations struct {
				ReadOnlyHint    *bool
				DestructiveHint *bool
			}
		}
		if err := json.Unmarshal(tools[i], &def); err != nil {
			t.Fatal(err)
		}
		if def.Name != want || def.InputSchema["type"] != "object" {
			t.Errorf("tool %d: %+v", i, def)
		}
		if def.Annotations.ReadOnlyHint == nil || !*def.Annotations.ReadOnlyHint || def.Annotations.DestructiveHint == nil || *def.Annotations.DestructiveHint {
			t.Errorf("tool %s: annotations %+v, want readOnlyHint true, destructiveHint false", want, def.Annotations)
		}
	}
	off := newHarness(t, nil, func(o *Options) { o.AuditTools = false })
	if off.p.AuditTools() != nil || off.p.IsAuditTool(ReportTool) {
		t.Error("audit tools listed with AuditTools off")
	}
	if _, ok := off.p.CallAuditTool(ReportTool, nil); ok {
		t.Error("audit tool answered with AuditTools off")
	}
}

func TestCallAuditTool(t *testing.T) {
	tests := []struct {
		name      string
		tool      string
		args      string
		wantError bool
		wantText  string // prefix
	}{
		{"report default markdown", ReportTool, ``, false, "# report"},
		{"report null arguments", ReportTool, `null`, false, "# report"},
		{"report markdown", ReportTool, `{"format":"markdown"}`, false, "# report"},
		{"report json is the report file", ReportTool, `{"format":"json"}`, false, `{"status":"running"`},
		{"report unknown format", ReportTool, `{"format":"html"}`, true, ReportTool + `: format must be`},
		{"report arguments not an object", ReportTool, `[1]`, true, ReportTool + `: arguments must be`},
		{"score", ScoreTool, `{}`, false, "## Overall: no score [NOT_TESTED]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.p.SetToolClassification(json.RawMessage(`[]`))
			writes := h.report.count()
			resp, ok := h.p.CallAuditTool(tt.tool, json.RawMessage(tt.args))
			if !ok || resp.Error != nil {
				t.Fatalf("ok=%v error=%v", ok, resp.Error)
			}
			var r struct {
				Content           []struct{ Type, Text string }
				IsError           bool
				StructuredContent json.RawMessage
			}
			if err := json.Unmarshal(resp.Result, &r); err != nil {
				t.Fatal(err)
			}
			if r.IsError != tt.wantError || len(r.Content) != 1 || r.Content[0].Type != "text" || !strings.HasPrefix(r.Content[0].Text, tt.wantText) {
				t.Errorf("result %s, want isError=%v and text starting %q", resp.Result, tt.wantError, tt.wantText)
			}
			if tt.tool == ScoreTool && !strings.HasPrefix(string(r.StructuredContent), `{"verdict":"NOT_TESTED","verdictReason":"no calls","score":{"total":null`) {
				t.Errorf("structuredContent %s", r.StructuredContent)
			}
			// Never recorded, never a read or write, never forwarded.
			if len(h.judge.list()) != 0 || h.report.count() != writes {
				t.Errorf("audit call recorded: events %q, writes %d→%d", events(h.judge), writes, h.report.count())
			}
		})
	}
}

func TestLocalTool(t *testing.T) {
	h := newHarness(t, nil, nil)
	got, err := h.p.LocalTool(context.Background(), ScoreTool, nil)
	if err != nil || !strings.Contains(string(got), `"verdict`) {
		t.Errorf("LocalTool(score) = %s, %v", got, err)
	}
	if _, err := h.p.LocalTool(context.Background(), "create_booking", nil); err == nil {
		t.Error("LocalTool answered a non-audit tool")
	}
}
