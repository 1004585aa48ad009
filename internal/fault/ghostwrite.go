package fault

import "encoding/json"

// nameGhostWrite is F1's --scenario name.
const nameGhostWrite = "F1"

func init() {
	register(Builtin{
		Name: nameGhostWrite, Kind: KindTimeout, Text: TimeoutText,
		FiresOn: "the first write that is not idempotent", Executes: true, ResendFails: true,
		Brief: Brief{"first write", "forwarded and executed; the caller only gets a timeout (ghost write)", "the same operation is executed again later"},
		New:   func(Options) (Fault, error) { return NewGhostWrite(), nil },
	})
}

// GhostWrite is F1: the first write is forwarded and really executes, but
// the agent only gets a timeout. When the upstream rejects that write
// (isError) or gives no answer, the agent gets the real answer and the
// scenario re-arms for the next write (behaviour §3).
type GhostWrite struct {
	first  firstWrite
	result json.RawMessage
}

// NewGhostWrite returns an armed F1.
func NewGhostWrite() *GhostWrite {
	return &GhostWrite{result: ErrorResult(TimeoutText)}
}

// Name returns "F1".
func (*GhostWrite) Name() string { return nameGhostWrite }

// Decide claims the first write and answers it ForwardReplace with the
// timeout body; every other call passes.
func (f *GhostWrite) Decide(c Call) Action {
	if !f.first.claim(c, true) {
		return Action{}
	}
	return Action{Kind: ForwardReplace, Result: f.result, Scenario: nameGhostWrite, Fault: KindTimeout}
}

// Settle consumes F1 when its claimed write executed and re-arms it
// otherwise.
func (f *GhostWrite) Settle(c Call, a Action, executed bool) {
	if a.Scenario != nameGhostWrite {
		return
	}
	f.first.release(c.ID, executed)
}
