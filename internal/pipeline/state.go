package pipeline

import (
	"errors"
	"fmt"
	"sort"

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
	// Map is tool → counter: after the after snapshot, a mapped tool
	// whose effect cannot be computed gets a WARNING line.
	Map map[string]string
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
	if at == "after" && s.Error == "" {
		p.warnEffects(s)
	}
}

// warnEffects prints a line per mapped tool whose counter gives no
// effect (missing, not a number, no before snapshot), in tool order.
func (p *Pipeline) warnEffects(after state.Snapshot) {
	var before *state.Snapshot
	for _, s := range p.Snapshots() {
		if s.At == "before" {
			before = &s
			break
		}
	}
	tools := make([]string, 0, len(p.opts.Probe.Map))
	for t := range p.opts.Probe.Map {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		var err error
		if before == nil {
			err = errors.New("no snapshot before the upstream started")
		} else if before.Error == "" {
			_, err = state.Effect(*before, after, p.opts.Probe.Map[t])
		}
		if err != nil {
			fmt.Fprintf(p.opts.Stderr, "[agent-harness] WARNING: state probe: no effect for %s: %s; the wire judgement stands\n", escape.Line(t), escape.Line(err.Error()))
		}
	}
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

// isEnding reports whether the session end has begun (OnSessionEnd).
func (p *Pipeline) isEnding() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ending
}
