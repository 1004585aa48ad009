package pipeline

import (
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// OnSessionEnd ends the session (agent EOF or a signal): it waits up to the
// grace for calls in flight, then tells the judge the session ended (calls
// still unanswered count as unknown), and writes the final report file
// (status "finished"). Later calls are relayed without being judged.
// Calling it again does nothing. After the report file failed it returns
// that error at once.
func (p *Pipeline) OnSessionEnd() error {
	if err := p.brokenErr(); err != nil {
		return err
	}
	p.mu.Lock()
	if p.ending {
		p.mu.Unlock()
		return nil
	}
	p.ending = true
	idle := p.idle
	p.mu.Unlock()
	if idle != nil {
		select {
		case <-idle:
		case <-p.clock.After(p.opts.Grace):
		}
	}
	p.probe("after") // before EventEnd: the final report holds it
	gen := p.bump(func() {
		p.judgeLocked(judge.Event{Kind: judge.EventEnd, Time: p.clock.Now()})
		p.ended = true
		if p.status != report.StatusFailed {
			p.status = report.StatusFinished
		}
	})
	err := p.persistFinal(gen)
	p.over.Store(true)
	return err
}
