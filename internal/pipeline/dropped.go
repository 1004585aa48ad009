package pipeline

import (
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// DroppedCall records a tools/call the relay did not forward because it
// had no id (relay.DroppedCallObserver): the judge counts it and the run
// can no longer PASS. The report file is rewritten.
func (p *Pipeline) DroppedCall(c relay.DroppedCall) {
	if p.brokenErr() != nil {
		return
	}
	gen := p.apply(judge.Event{Kind: judge.EventDroppedCall, Time: p.clock.Now(), Tool: c.Tool})
	if err := p.persist(gen); err != nil {
		p.opts.Fatal(err)
	}
}

var _ relay.DroppedCallObserver = (*Pipeline)(nil)
