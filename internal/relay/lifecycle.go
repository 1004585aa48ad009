package relay

import (
	"sync"
	"sync/atomic"
)

// lifecycle holds the one-way events of a session: each happens at most
// once, can be waited for (a channel closed when it happens) and asked
// about. A mark method may be called any number of times, from any
// goroutine; only the first call counts.
type lifecycle struct {
	upGone       event // the upstream is gone (exited, closed its output, or a write failed)
	agentGone    event // writing to the agent failed (it stopped reading)
	startFailed  event // the upstream exited or did not answer before the session started
	agentEOF     event // the agent's input ended
	upReaderDone event // the upstream reader returned
	stderrDone   event // the upstream's stderr was copied to its end
	exitWatched  event // watchExit has reported the upstream's exit (or decided not to)

	// goneAtStop records, before the proxy stops the upstream, whether it
	// was already gone: then its exit was a crash, not the proxy's doing.
	goneAtStop atomic.Bool
}

func newLifecycle() *lifecycle {
	l := &lifecycle{}
	for _, e := range []*event{&l.upGone, &l.agentGone, &l.startFailed, &l.agentEOF, &l.upReaderDone, &l.stderrDone, &l.exitWatched} {
		e.ch = make(chan struct{})
	}
	return l
}

// upstreamGone is closed once the upstream is gone.
func (l *lifecycle) upstreamGone() <-chan struct{} { return l.upGone.ch }

// isUpstreamGone reports whether the upstream is gone.
func (l *lifecycle) isUpstreamGone() bool { return l.upGone.happened() }

// markUpstreamGone records that the upstream is gone and, the first time,
// runs then; a concurrent caller returns once then has run.
func (l *lifecycle) markUpstreamGone(then func()) { l.upGone.markThen(then) }

// agentStopped is closed once writing to the agent failed.
func (l *lifecycle) agentStopped() <-chan struct{} { return l.agentGone.ch }

func (l *lifecycle) markAgentGone() { l.agentGone.mark() }

// startFailure is closed once the session failed to start.
func (l *lifecycle) startFailure() <-chan struct{} { return l.startFailed.ch }

func (l *lifecycle) markStartFailed() { l.startFailed.mark() }

// agentInputEnded is closed at the end of the agent's input.
func (l *lifecycle) agentInputEnded() <-chan struct{} { return l.agentEOF.ch }

func (l *lifecycle) markAgentEOF() { l.agentEOF.mark() }

// upstreamReaderDone is closed once the upstream reader returned: all it
// read was dispatched.
func (l *lifecycle) upstreamReaderDone() <-chan struct{} { return l.upReaderDone.ch }

func (l *lifecycle) markUpstreamReaderDone() { l.upReaderDone.mark() }

// upstreamStderrDone is closed once the upstream's stderr was copied.
func (l *lifecycle) upstreamStderrDone() <-chan struct{} { return l.stderrDone.ch }

func (l *lifecycle) markStderrDone() { l.stderrDone.mark() }

// exitReported is closed once watchExit is done.
func (l *lifecycle) exitReported() <-chan struct{} { return l.exitWatched.ch }

func (l *lifecycle) markExitReported() { l.exitWatched.mark() }

// event is one lifecycle event: a channel closed once.
type event struct {
	ch   chan struct{}
	once sync.Once
}

func (e *event) mark() { e.once.Do(func() { close(e.ch) }) }

func (e *event) markThen(then func()) {
	e.once.Do(func() {
		close(e.ch)
		then()
	})
}

func (e *event) happened() bool {
	select {
	case <-e.ch:
		return true
	default:
		return false
	}
}
