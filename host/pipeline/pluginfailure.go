package pipeline

import (
	"sync"

	"github.com/cuonztech/agent-harness/builtin/judge"
)

// pluginFailures queues the plugin failures reported to PluginFailed until
// they are applied under the pipeline's state lock.
type pluginFailures struct {
	mu       sync.Mutex
	queued   []judge.Event
	flushing bool // a flush goroutine was started and has not drained yet
}

// PluginFailed records that a plugin failed or was disabled: a
// judge.EventPluginFailure (the run can no longer PASS), and a rewrite of
// the report file. It is the sink of plugin.Failures.Attach. A detail
// starting with judge.PluginDisabledPrefix ("disabled after 5 consecutive
// failures") is the disabling: the judge shows it as the plugin's status,
// not as one more failure.
//
// It may be called from any goroutine, also from inside a plugin hook the
// judge is running while it applies another event (the plugin host reports
// the disabling of an equivalence plugin that way), so it never waits for
// the pipeline's state lock: the failure is queued, applied before the
// next event or by a goroutine it starts, and the session end applies
// every failure queued before it. A report file that cannot be written is
// handled as for any write: one line on stderr, and the next call or the
// session end stops the proxy.
func (p *Pipeline) PluginFailed(plugin, detail string) {
	ev := judge.Event{Kind: judge.EventPluginFailure, Time: p.clock.Now(), Plugin: plugin, Detail: detail}
	q := &p.pluginFails
	q.mu.Lock()
	q.queued = append(q.queued, ev)
	start := !q.flushing
	q.flushing = true
	q.mu.Unlock()
	if start {
		go p.flushPluginFailures()
	}
}

// flushPluginFailures applies the queued plugin failures and writes the
// report file.
func (p *Pipeline) flushPluginFailures() {
	p.mu.Lock()
	p.applyPluginFailuresLocked()
	gen := p.gen
	p.mu.Unlock()
	_ = p.persist(gen) // a failed write printed its line and stops the next call
}

// applyPluginFailuresLocked hands the queued plugin failures to the judge;
// p.mu must be held. After the session end they are dropped, like every
// other event.
func (p *Pipeline) applyPluginFailuresLocked() {
	q := &p.pluginFails
	q.mu.Lock()
	evs := q.queued
	q.queued, q.flushing = nil, false
	q.mu.Unlock()
	if p.ended {
		return
	}
	for _, ev := range evs {
		p.judgeLocked(ev)
		p.gen++
	}
}
