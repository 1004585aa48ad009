package fault

import (
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// namePassTwice is F4's --scenario name.
const namePassTwice = "F4"

func init() {
	register(Builtin{
		Name: namePassTwice, FiresOn: "the first two writes that are not idempotent", Executes: true, ResendFails: true,
		Brief: Brief{"first 2 writes", "nothing injected, both pass unchanged; the harness does not deduplicate", "the same operation is executed twice"},
		New:   func(Options) (Fault, error) { return NewPassTwice(), nil },
	})
}

// F4Writes is how many writes F4 applies to.
const F4Writes = 2

// PassTwice is F4: the first two writes that are not idempotent pass
// unchanged (nothing is injected, nothing deduplicated); they are marked
// with Scenario "F4" so the judge knows the scenario applied.
type PassTwice struct {
	writes atomic.Int64
}

// NewPassTwice returns an F4 that has seen no write yet.
func NewPassTwice() *PassTwice { return &PassTwice{} }

// Name returns "F4".
func (*PassTwice) Name() string { return namePassTwice }

// Decide marks the first two writes; every call passes.
func (f *PassTwice) Decide(c Call) Action {
	if c.Class != classify.Write || c.Idempotent {
		return Action{}
	}
	// Counting past F4Writes is harmless: an int64 does not wrap in a session.
	if f.writes.Add(1) > F4Writes {
		return Action{}
	}
	return Action{Kind: Pass, Scenario: namePassTwice}
}
