package fault

import (
	"encoding/json"
	"sync"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// firstWrite is the "first write" state shared by F1, F2, F3 and F5. A
// scenario is armed until a write claims it; the claim is taken under a
// mutex, so of two writes arriving at once exactly one is the first. A
// claim is either final at once (F2, F3, F5 never forward their target) or
// pending until settled (F1: an upstream rejection or no answer re-arms).
type firstWrite struct {
	mu      sync.Mutex
	state   armState
	claimed int64 // call ID holding a pending claim
}

type armState int

const (
	armed armState = iota
	pending
	consumed
)

// claim reports whether c is the first write that is not idempotent (behaviour
// §4.8: repeating an idempotent write is correct, so faulting it tests
// nothing). With settle false the scenario is consumed at once; with settle
// true it stays pending until release.
func (f *firstWrite) claim(c Call, settle bool) bool {
	if c.Class != classify.Write || c.Idempotent {
		return false
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != armed {
		return false
	}
	if settle {
		f.state, f.claimed = pending, c.ID
	} else {
		f.state = consumed
	}
	return true
}

// release settles the pending claim of call id: consumed when applied,
// armed again otherwise. Calls that do not hold the claim are ignored.
func (f *firstWrite) release(id int64, applied bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.state != pending || f.claimed != id {
		return
	}
	if applied {
		f.state = consumed
	} else {
		f.state = armed
	}
	f.claimed = 0
}

// injectFirst is a fault that answers the first write with a fixed result
// and does not forward it (F3, F5); every other call passes.
type injectFirst struct {
	first  firstWrite
	name   string
	kind   string
	result json.RawMessage
}

// Name returns the scenario's name ("F3", "F5").
func (f *injectFirst) Name() string { return f.name }

// Decide claims the first write and injects the result; every other call
// passes.
func (f *injectFirst) Decide(c Call) Action {
	if !f.first.claim(c, false) {
		return Action{}
	}
	return Action{Kind: Inject, Result: f.result, Scenario: f.name, Fault: f.kind}
}
