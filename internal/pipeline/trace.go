package pipeline

import (
	"fmt"
	"time"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/judge"
)

// Tracer records the judge's events and the plugins' failures
// (*trace.Writer). Record is called under the pipeline's state lock, in the
// order the judge applies the events, before the judge sees each one;
// PluginFailure from any goroutine (see PluginFailed). Neither may call
// back into the pipeline.
type Tracer interface {
	Record(ev judge.Event) error
	PluginFailure(at time.Time, plugin, detail string, disabled bool) error
	Path() string
}

// judgeLocked records ev in the trace, then hands it to the judge; p.mu
// must be held. After the trace failed, events still reach the judge (the
// call that sees the failure stops the proxy through Fatal).
func (p *Pipeline) judgeLocked(ev judge.Event) {
	if t := p.opts.Trace; t != nil && p.traceBad.Load() == nil {
		if err := t.Record(ev); err != nil {
			p.traceFailed(t, err)
		}
	}
	p.judge.Apply(ev)
}

// traceFailed stops the trace after a failed write: one line on stderr
// (the first failure only), and traceErr returns the error from now on.
func (p *Pipeline) traceFailed(t Tracer, err error) {
	err = fmt.Errorf("cannot write trace file %s: %w", t.Path(), err)
	if p.traceBad.CompareAndSwap(nil, &err) {
		fmt.Fprintf(p.opts.Stderr, "[agent-harness] %s\n", escape.Line(err.Error()))
	}
}

// traceErr returns the error that stopped the trace, nil while it works.
func (p *Pipeline) traceErr() error {
	if e := p.traceBad.Load(); e != nil {
		return *e
	}
	return nil
}

// deferWrite reports whether the report write for gen is left to a later
// moment by Options.ReportInterval: when the last write was less than an
// interval ago, one write is scheduled for the end of the interval.
func (p *Pipeline) deferWrite(gen uint64) bool {
	iv := p.opts.ReportInterval
	if iv <= 0 {
		return false
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.failed != nil || p.written >= gen {
		return false // writeNow returns the error or nothing to do
	}
	wait := iv - time.Since(p.wroteAt)
	if wait <= 0 {
		return false
	}
	if !p.due {
		p.due = true
		time.AfterFunc(wait, p.writeDue)
	}
	return true
}

// writeDue is the deferred report write at the end of an interval.
func (p *Pipeline) writeDue() {
	p.wmu.Lock()
	p.due = false
	p.wmu.Unlock()
	p.mu.Lock()
	gen := p.gen
	p.mu.Unlock()
	// A failed write printed its line; the next call or the session end
	// stops the proxy.
	_ = p.writeNow(gen)
}
