package plugin_test

import (
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
)

// TestFaultSkipsIdempotentWrites: the host never offers a write of an
// idempotent tool to a fault plugin (behaviour §4.8, sdk/ABI.md §5.6), so a
// plugin's "first write" is the first write that is not idempotent.
func TestFaultSkipsIdempotentWrites(t *testing.T) {
	path := goPlugin(t, "./plugins/faultpack")
	p, _, _ := loadWith(t, path, nil)
	s := findFault(t, p, "partial_success")
	idem := fault.Call{ID: 1, Tool: "set_status", Class: classify.Write, Idempotent: true, Arguments: json.RawMessage(`{"x":1}`)}
	if a := s.Decide(idem); a.Kind != fault.Pass || a.Scenario != "" || a.Result != nil {
		t.Fatalf("idempotent write: %+v, want a plain pass", a)
	}
	a := s.Decide(fault.Call{ID: 2, Tool: "create", Class: classify.Write, Arguments: json.RawMessage(`{"x":1}`)})
	if a.Scenario != "partial_success" {
		t.Fatalf("first non-idempotent write: %+v, want the fault", a)
	}
}
