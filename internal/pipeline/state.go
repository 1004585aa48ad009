package pipeline

import (
	"fmt"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/state"
)

// Probe takes the state snapshots of a session (behaviour §16): one
// before the upstream starts (ProbeBefore), one after the session ends
// (in OnSessionEnd, before the final report) and, with EveryWrite, one
// after each forwarded write's answer, before the report write that
// shows it.
type Probe struct {
	// Run runs the probe once; at is "before", "after" or "write".
	Run func(at string) state.Snapshot
	// EveryWrite takes a snapshot after each forwarded write's answer.
	EveryWrite bool
}

// ProbeBefore takes the "before" snapshot; call it before the upstream
// starts. Without a probe it does nothing.
func (p *Pipeline) ProbeBefore() {
	p.probe("before")
}

// probe runs the probe and records its snapshot; a failure is one line on
// stderr (the wire judgement stands, behaviour §16.2).
func (p *Pipeline) probe(at string) {
	if p.opts.Probe == nil || p.opts.Probe.Run == nil {
		return
	}
	s := p.opts.Probe.Run(at)
	if s.Error != "" {
		fmt.Fprintf(p.opts.Stderr, "[agent-harness] WARNING: state probe (%s) failed: %s; the wire judgement stands\n", at, escape.Line(s.Error))
	}
	p.recordState(s)
}

// recordState hands a snapshot to the judge (through the trace) and
// writes the report file unless it is the after snapshot (the final
// write follows).
func (p *Pipeline) recordState(s state.Snapshot) {
	p.mu.Lock()
	p.snapshots = append(p.snapshots, s)
	p.mu.Unlock()
	gen := p.apply(judge.Event{Kind: judge.EventState, Time: p.clock.Now(), State: &s})
	if s.At == "before" {
		if err := p.persistFinal(gen); err != nil {
			p.opts.Fatal(err)
		}
	}
}

// Snapshots are the state snapshots taken so far.
func (p *Pipeline) Snapshots() []state.Snapshot {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]state.Snapshot(nil), p.snapshots...)
}
