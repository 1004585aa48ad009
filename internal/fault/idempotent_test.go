package fault

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
)

func idempotentWrite(id int64) Call {
	c := call(id, classify.Write)
	c.Idempotent = true
	return c
}

// TestScenariosSkipIdempotentWrites: F1–F5 fire on the first write that is
// not idempotent (behaviour §4.8); idempotent writes before it pass unchanged
// and leave the scenario armed.
func TestScenariosSkipIdempotentWrites(t *testing.T) {
	for _, name := range []string{"F1", "F2", "F3", "F4", "F5"} {
		t.Run(name, func(t *testing.T) {
			f := mustNew(t, name, Options{})
			for id := int64(1); id <= 3; id++ {
				if a := f.Decide(idempotentWrite(id)); !isPass(a) || a.Scenario != "" {
					t.Fatalf("idempotent write %d: %+v, want a plain pass", id, a)
				}
			}
			if a := f.Decide(call(4, classify.Write)); a.Scenario != name {
				t.Fatalf("first non-idempotent write: scenario %q, want %s", a.Scenario, name)
			}
		})
	}
}

// TestChaosHitsIdempotentWrites: chaos hits every read and write (behaviour §3),
// idempotent ones too.
func TestChaosHitsIdempotentWrites(t *testing.T) {
	f := mustNew(t, "chaos", Options{Seed: 1, ErrorRate: 1})
	if a := f.Decide(idempotentWrite(1)); a.Kind != Inject || a.Scenario != "chaos" {
		t.Fatalf("chaos on an idempotent write: %+v, want an injected fault", a)
	}
}
