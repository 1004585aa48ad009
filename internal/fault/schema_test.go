package fault_test

import (
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/mcpschema"
)

// TestInjectedResultsMatchPublishedSchemas walks every built-in fault of
// the registry (F1–F5, chaos) and the results a fault plugin may inject,
// as fault.Deliver hands them to the agent, for a tool with and without an
// outputSchema, in every vendored revision, and checks each against that
// revision's published CallToolResult (testdata/mcp-schema): resultType
// "complete" from 2026-07-28 on (behaviour §3.3). A session whose version
// is unknown gets the 2025-11-25 shape (no resultType), which every
// revision's client accepts as "complete".
func TestInjectedResultsMatchPublishedSchemas(t *testing.T) {
	builtins := fault.Builtins()
	if len(builtins) < 6 {
		t.Fatalf("the registry holds %d built-ins, want F1–F5 and chaos", len(builtins))
	}
	for _, b := range builtins {
		for _, rev := range mcpschema.Revisions {
			for _, schema := range []bool{false, true} {
				f, err := b.New(fault.Options{ErrorRate: 1}) // armed: the call is its first write
				if err != nil {
					t.Fatalf("%s: %v", b.Name, err)
				}
				c := fault.Call{ID: 1, Tool: "create_booking", Class: classify.Write, ProtocolVersion: rev, OutputSchema: schema}
				a := f.Decide(c)
				if a.Kind == fault.Pass {
					if b.Kind != "" {
						t.Errorf("%s made no result for a first write", b.Name)
					}
					continue
				}
				r, err := fault.Deliver(a.Result, c)
				if err != nil {
					t.Errorf("%s %s: Deliver: %v", b.Name, rev, err)
					continue
				}
				check(t, b.Name, rev, r)
			}
		}
	}
	// A fault plugin's result (internal/plugin: fault.Deliver of the
	// plugin's result): every content type, structuredContent, _meta.
	plugin := []string{
		`{"content":[{"type":"text","text":"x"}],"isError":true}`,
		`{"content":[{"type":"text","text":"x"}],"isError":true,"structuredContent":{"a":1},"_meta":{"com.example/k":1,"io.modelcontextprotocol/x":2}}`,
		`{"content":[{"type":"image","data":"AAAA","mimeType":"image/png"},{"type":"resource","resource":{"uri":"file:///a","text":"t"}},{"type":"resource","resource":{"uri":"file:///b","mimeType":"x/y","blob":"AAAA"}}],"isError":true}`,
		`{"content":[{"type":"audio","data":"AAAA","mimeType":"audio/wav"},{"type":"resource_link","uri":"file:///a","name":"a","title":"A"}],"isError":true,"resultType":"input_required"}`,
	}
	for _, rev := range mcpschema.Revisions {
		for i, p := range plugin {
			c := fault.Call{ID: 1, Tool: "t", Class: classify.Write, ProtocolVersion: rev}
			r, err := fault.Deliver(json.RawMessage(p), c)
			if err != nil {
				if rev >= "2025-06-18" || i < 3 {
					t.Errorf("plugin result %d %s: %v", i, rev, err)
				}
				continue // audio and resource_link before their revision
			}
			check(t, "plugin result", rev, r)
		}
	}
}

func check(t *testing.T, what, rev string, result []byte) {
	t.Helper()
	if errs := mcpschema.Check(rev, "CallToolResult", result); len(errs) > 0 {
		t.Errorf("%s in a %s session: not a valid CallToolResult of that revision: %q\n%s", what, rev, errs, result)
	}
}
