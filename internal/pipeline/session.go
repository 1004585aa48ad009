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
	legs, open := p.rounds.drain(), p.tasks.drain()
	gen := p.bump(func() {
		now := p.clock.Now()
		for _, t := range sortedTasks(open) {
			// No final status seen: the task may still run (behaviour
			// §4.13). A scenario that passed the write (F4) applied to
			// it whatever its outcome, as to a write forwarded without a
			// task; F1's fault replaced a handle whose execution is
			// unproven, so it did not fire (its proof is an executed
			// final status).
			p.judgeLocked(judge.Event{Kind: judge.EventAnswer, Time: now, Call: t.call, Outcome: judge.Unknown, Scenario: t.scenario,
				Detail: "the task's final status was not known at the session end (its last status: " + t.status + ")"})
		}
		for _, l := range legs {
			// Asked for input, never followed up: the tool did not
			// complete (behaviour §4.12).
			p.judgeLocked(judge.Event{Kind: judge.EventAnswer, Time: now, Call: l.call,
				Outcome: judge.Incomplete, Detail: incompleteNotFollowed, Result: l.result})
		}
		p.judgeLocked(judge.Event{Kind: judge.EventEnd, Time: now})
		p.ended = true
		if p.status != report.StatusFailed {
			p.status = report.StatusFinished
		}
	})
	err := p.persistFinal(gen)
	p.over.Store(true)
	return err
}
