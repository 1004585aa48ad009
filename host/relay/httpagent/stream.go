package httpagent

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"strconv"
	"sync"

	"github.com/cuonztech/agent-harness/host/relay"
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

// appendEvent appends one SSE event carrying msg (one line of JSON) to
// dst: "id: N" when id > 0, "event: message", "data: msg", blank line.
// A message with a line break (not valid for a relay message, which is
// one line) is split over several data lines, which the SSE parser joins
// with "\n" again.
func appendEvent(dst []byte, id int64, msg []byte) []byte {
	if id > 0 {
		dst = append(dst, "id: "...)
		dst = strconv.AppendInt(dst, id, 10)
		dst = append(dst, '\n')
	}
	dst = append(dst, "event: message\n"...)
	for {
		i := bytes.IndexAny(msg, "\r\n")
		if i < 0 {
			break
		}
		dst = append(dst, "data: "...)
		dst = append(dst, msg[:i]...)
		dst = append(dst, '\n')
		if msg[i] == '\r' && i+1 < len(msg) && msg[i+1] == '\n' {
			i++
		}
		msg = msg[i+1:]
	}
	dst = append(dst, "data: "...)
	dst = append(dst, msg...)
	return append(dst, "\n\n"...)
}

// ReadEvents parses a text/event-stream body and calls fn with each
// event's id (empty when none), type ("message" when none) and data (the
// data lines joined with "\n"), in order, until the body ends or fn
// returns false. Comments and unknown fields are ignored. It returns the
// read error (nil at the end of the body).
func ReadEvents(r *bufio.Reader, fn func(id, typ string, data []byte) bool) error {
	var id, typ string
	var data []byte
	have, seenData := false, false
	for {
		line, err := r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			rest, err2 := r.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
			err = err2
		}
		if len(line) == 0 && err != nil {
			if have {
				fn(id, typOrMessage(typ), data)
			}
			return ignoreEOF(err)
		}
		line = bytes.TrimRight(line, "\r\n")
		switch {
		case len(line) == 0:
			if have {
				if !fn(id, typOrMessage(typ), data) {
					return nil
				}
			}
			typ, data, have, seenData = "", nil, false, false
		case line[0] == ':':
			// a comment
		default:
			field, value, _ := bytes.Cut(line, []byte(":"))
			value = bytes.TrimPrefix(value, []byte(" "))
			switch string(field) {
			case "data":
				if seenData {
					data = append(data, '\n')
				}
				data = append(data, value...)
				have, seenData = true, true
			case "event":
				typ = string(value)
				have = true
			case "id":
				id = string(value)
			}
		}
		if err != nil {
			if have {
				fn(id, typOrMessage(typ), data)
			}
			return ignoreEOF(err)
		}
	}
}

func typOrMessage(t string) string {
	if t == "" {
		return "message"
	}
	return t
}

func ignoreEOF(err error) error {
	if err == io.EOF {
		return nil
	}
	return err
}
