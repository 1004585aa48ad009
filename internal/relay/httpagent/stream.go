package httpagent

import (
	"context"
	"sync"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// outMsg is one message for an HTTP response stream.
type outMsg struct {
	data []byte // one JSON-RPC message, no trailing newline
	// final: the answer to the POST's request; the response ends with it.
	final bool
	// fault: deliver final as this HTTP-layer fault (--fault-layer http).
	fault *relay.TransportFault
	// id is the SSE event id (GET stream only; 0: none).
	id int64
}

// stream is the queue of one open response: a POST waiting for its
// answer, or the GET stream. Pushing never waits for the agent to read.
type stream struct {
	mu     sync.Mutex
	q      []outMsg
	wake   chan struct{} // a send when q got work or the stream closed
	closed bool
}

func newStream() *stream { return &stream{wake: make(chan struct{}, 1)} }

func (st *stream) push(m outMsg) bool {
	st.mu.Lock()
	if st.closed {
		st.mu.Unlock()
		return false
	}
	st.q = append(st.q, m)
	st.mu.Unlock()
	st.notify()
	return true
}

func (st *stream) notify() {
	select {
	case st.wake <- struct{}{}:
	default:
	}
}

// close ends the stream: next returns what is queued, then false.
func (st *stream) close() {
	st.mu.Lock()
	st.closed = true
	st.mu.Unlock()
	st.notify()
}

// next waits for the next queued messages (all of them), at most until
// ctx is done; ok is false when the stream closed or ctx is done with
// nothing queued.
func (st *stream) next(ctx context.Context) (ms []outMsg, ok bool) {
	for {
		st.mu.Lock()
		if len(st.q) > 0 {
			ms, st.q = st.q, nil
			st.mu.Unlock()
			return ms, true
		}
		closed := st.closed
		st.mu.Unlock()
		if closed {
			return nil, false
		}
		select {
		case <-st.wake:
		case <-ctx.Done():
			return nil, false
		}
	}
}
