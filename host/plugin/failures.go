package plugin

import "sync"

// maxQueued bounds the failures a Failures keeps before Attach.
const maxQueued = 1000

// Failures forwards plugin failures to a sink attached later. Plugins can
// fail while the startup table is being classified, before the pipeline
// that records judge events exists: pass Report as Options.OnFailure, then
// Attach the pipeline's sink; queued failures are delivered first, in
// order. Safe for concurrent use.
type Failures struct {
	mu      sync.Mutex
	sink    func(plugin, detail string)
	queued  [][2]string
	dropped int
}

// Report records one failure (the signature of Options.OnFailure).
func (f *Failures) Report(plugin, detail string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.sink != nil {
		f.sink(plugin, detail)
		return
	}
	if len(f.queued) >= maxQueued {
		f.dropped++
		return
	}
	f.queued = append(f.queued, [2]string{plugin, detail})
}

// Attach delivers the queued failures to sink and sends it every later
// one. The queue is capped at 1000; beyond that the count of dropped
// failures is delivered as one more failure of the last plugin.
func (f *Failures) Attach(sink func(plugin, detail string)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, q := range f.queued {
		sink(q[0], q[1])
	}
	if f.dropped > 0 {
		sink(f.queued[len(f.queued)-1][0], "more failures before the session started were not recorded")
	}
	f.queued, f.dropped, f.sink = nil, 0, sink
}
