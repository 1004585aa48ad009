package pipeline

// PluginFailed records a plugin's failed call, or its disabling (disabled
// true), as the plugin host reports it (plugin.Options.OnFailure): a
// plugin-failure line in the trace, so that `agent-harness judge` finds
// it, and a rewrite of the report file. The judge gets no event: its
// verdict and report.pluginFailures read the plugins' status from the
// plugin host (judge.Config.PluginStatus), which counts the failure right
// after this returns.
//
// It may be called from any goroutine, also from inside a plugin hook the
// judge is running (an equivalence plugin failing inside judge.Apply), so
// it never waits for the pipeline's state lock: the trace line is written
// at once (the trace has a lock of its own), the report file by a
// goroutine it starts. Nothing is recorded once the final report file was
// written. A trace or report file that cannot be written is handled as
// for any write: one line on stderr, and the next call or the session end
// stops the proxy.
func (p *Pipeline) PluginFailed(plugin, detail string, disabled bool) {
	if p.over.Load() {
		return
	}
	if t := p.opts.Trace; t != nil && p.traceBad.Load() == nil {
		if err := t.PluginFailure(p.clock.Now(), plugin, detail, disabled); err != nil {
			p.traceFailed(t, err)
		}
	}
	if p.rewriting.CompareAndSwap(false, true) {
		go p.rewriteForPlugin()
	}
}

// rewriteForPlugin writes the report file after a plugin failure.
func (p *Pipeline) rewriteForPlugin() {
	p.rewriting.Store(false) // a later failure starts another rewrite
	p.mu.Lock()
	if p.ended {
		p.mu.Unlock()
		return
	}
	p.gen++
	gen := p.gen
	p.mu.Unlock()
	_ = p.persist(gen) // a failed write printed its line and stops the next call
}
