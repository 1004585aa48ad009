package relay

import (
	"errors"
	"io"
	"sync"
	"sync/atomic"
	"time"
)

// maxQueued bounds the bytes of messages waiting for an upstream that does
// not read its input. A message that would exceed it is refused (a request
// gets an error, a notification is dropped with a warning) unless nothing
// is waiting: one message of any size is always accepted.
const maxQueued = 64 << 20

// errQueueFull is returned by send when maxQueued would be exceeded.
var errQueueFull = errors.New("the upstream is not reading its input (more than 64 MiB of messages are waiting for it)")

// upWriter writes messages to the upstream in order without ever making
// its caller wait for the upstream to read: a reader of the agent goes on
// reading (and sees the end of the agent's input) while the upstream's
// input pipe is full.
//
// When nothing is waiting, send writes what the pipe takes at once itself
// (a non-blocking write: no goroutine switch on the per-call path); the
// rest, and every message sent while something is waiting, is queued and
// written by one goroutine. A queued message that has not begun can be
// withdrawn (a call whose timeout expired while it waited is then never
// seen by the upstream).
//
// Why a queue rather than blocking: a blocked agent reader would not see
// the agent's further messages or its EOF, so a stalled upstream would hang
// the whole proxy. Why bounded: every message the agent sends while the
// upstream does not read stays in memory; calls leave the queue at their
// timeout, notifications and other requests would not.
type upWriter struct {
	w      io.Writer
	try    func([]byte) (int, error) // one non-blocking attempt; nil: none
	onFail func(error)

	mu      sync.Mutex
	cond    sync.Cond // signalled when q gets work or err is set
	q       []*ticket // q[0] is being written when taken
	bytes   int       // size of the queued messages not yet taken
	err     error
	flushed chan struct{} // closed when q becomes empty (flush waits)
	buf     []byte        // send's buffer for small messages
	wbuf    []byte        // the goroutine's buffer for small messages
}

// ticket is one queued message.
type ticket struct {
	parts [4][]byte
	size  int
	taken bool // guarded by mu: the goroutine writes it; it cannot be withdrawn
	// begun: some of the message may have reached the upstream.
	begun atomic.Bool
}

// sentTicket is the ticket of every message written completely by send
// (read only).
var sentTicket = func() *ticket {
	t := &ticket{taken: true}
	t.begun.Store(true)
	return t
}()

func newUpWriter(w io.Writer, try func([]byte) (int, error), onFail func(error)) *upWriter {
	u := &upWriter{w: w, try: try, onFail: onFail}
	u.cond.L = &u.mu
	go u.run()
	return u
}

// send writes m, or queues it. It never waits for the upstream. The error
// is the first write error (the upstream is gone), errWriterClosed, or
// errQueueFull.
func (u *upWriter) send(m message) (*ticket, error) {
	u.mu.Lock()
	if u.err != nil {
		err := u.err
		u.mu.Unlock()
		return nil, err
	}
	size := m.size()
	if len(u.q) == 0 && u.try != nil {
		rest, n, err := u.tryNow(m, size)
		switch {
		case err != nil:
			u.mu.Unlock()
			u.fail(err)
			return nil, err
		case n == size:
			u.mu.Unlock()
			return sentTicket, nil
		}
		t := &ticket{parts: rest, size: size - n}
		t.begun.Store(n > 0)
		u.q = append(u.q, t)
		u.bytes += t.size
		u.cond.Signal()
		u.mu.Unlock()
		return t, nil
	}
	if u.bytes > 0 && u.bytes+size > maxQueued {
		u.mu.Unlock()
		return nil, errQueueFull
	}
	t := &ticket{parts: m.parts(), size: size}
	u.q = append(u.q, t)
	u.bytes += size
	u.cond.Signal()
	u.mu.Unlock()
	return t, nil
}

// tryNow writes what the pipe takes of m without waiting; rest is what is
// left (copied only from a small message, which went through u.buf).
func (u *upWriter) tryNow(m message, size int) (rest [4][]byte, n int, err error) {
	if size <= smallMessage {
		var b []byte
		b, u.buf = m.flatten(u.buf)
		n, err = u.try(b)
		if err != nil || n == len(b) {
			return rest, n, err
		}
		rest[0] = append([]byte(nil), b[n:]...)
		return rest, n, nil
	}
	rest = m.parts()
	for i, p := range rest {
		if len(p) == 0 {
			continue
		}
		k, err := u.try(p)
		n += k
		rest[i] = p[k:]
		if err != nil || k < len(p) {
			return rest, n, err
		}
	}
	return rest, n, nil
}

// run writes the queued messages in order until the writer fails or is
// closed.
func (u *upWriter) run() {
	u.mu.Lock()
	for {
		for len(u.q) == 0 && u.err == nil {
			u.cond.Wait()
		}
		if u.err != nil {
			u.mu.Unlock()
			return
		}
		t := u.q[0]
		t.taken = true
		t.begun.Store(true)
		u.bytes -= t.size
		u.mu.Unlock()
		var err error
		u.wbuf, err = writeParts(u.w, t.parts, t.size, u.wbuf)
		if cap(u.wbuf) > smallMessage*2 {
			u.wbuf = nil
		}
		if err != nil {
			u.fail(err)
			u.mu.Lock()
			continue
		}
		u.mu.Lock()
		if u.err != nil {
			continue // closed meanwhile: the queue is gone
		}
		u.q[0] = nil
		u.q = u.q[1:]
		if len(u.q) == 0 {
			u.q = nil
			u.noteFlushedLocked()
		}
	}
}

// withdraw removes t from the queue if it has not begun; true when it was
// removed (the upstream never sees it).
func (u *upWriter) withdraw(t *ticket) bool {
	u.mu.Lock()
	defer u.mu.Unlock()
	if t.taken || t.begun.Load() {
		return false
	}
	for i, q := range u.q {
		if q == t {
			u.q = append(u.q[:i], u.q[i+1:]...)
			u.bytes -= t.size
			t.taken = true
			if len(u.q) == 0 {
				u.noteFlushedLocked()
			}
			return true
		}
	}
	return false
}

// fail records the first write error, drops the queue and calls onFail
// (once).
func (u *upWriter) fail(err error) {
	u.mu.Lock()
	first := u.err == nil
	if first {
		u.err = err
	}
	u.q, u.bytes = nil, 0
	u.noteFlushedLocked()
	u.cond.Broadcast()
	u.mu.Unlock()
	if first && u.onFail != nil && err != errWriterClosed {
		u.onFail(err)
	}
}

func (u *upWriter) noteFlushedLocked() {
	if u.flushed != nil {
		close(u.flushed)
		u.flushed = nil
	}
}

// flush waits until every queued message is written, at most d.
func (u *upWriter) flush(d time.Duration) {
	u.mu.Lock()
	if len(u.q) == 0 {
		u.mu.Unlock()
		return
	}
	if u.flushed == nil {
		u.flushed = make(chan struct{})
	}
	ch := u.flushed
	u.mu.Unlock()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ch:
	case <-t.C:
	}
}

// close makes every later send fail and ends the goroutine once the
// message being written (if any) is done or fails.
func (u *upWriter) close() { u.fail(errWriterClosed) }
