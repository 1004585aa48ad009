package relay

import (
	"errors"
	"io"
	"time"
)

// errWriterClosed is returned by writes after close.
var errWriterClosed = errors.New("writer closed")

// smallMessage is the size up to which a message written in parts is first
// copied into one buffer, so that it takes one system call; a larger one
// is written part by part, never copied.
const smallMessage = 64 << 10

// message is one outgoing line: line with line[at:at+cut] replaced by id
// (a request or response whose id the relay rewrote) or, with id nil, line
// unchanged. A missing trailing newline is added when it is written. The
// parts are written as they are: a big message is never copied.
type message struct {
	line    []byte
	at, cut int
	id      []byte
}

// whole is a message that is line unchanged.
func whole(line []byte) message { return message{line: line} }

// parts returns the pieces of the message in order (empty ones nil).
func (m message) parts() [4][]byte {
	var p [4][]byte
	last := m.line
	if m.id == nil {
		p[0] = m.line
	} else {
		p[0], p[1], p[2] = m.line[:m.at], m.id, m.line[m.at+m.cut:]
		if len(p[2]) > 0 || len(p[1]) == 0 {
			last = p[2]
		} else {
			last = p[1]
		}
	}
	if len(last) == 0 || last[len(last)-1] != '\n' {
		p[3] = newline
	}
	return p
}

// size is the number of bytes the message writes.
func (m message) size() int {
	n := 0
	for _, b := range m.parts() {
		n += len(b)
	}
	return n
}

// flatten returns the message as one slice: the line itself when nothing
// is replaced or added, else a copy in buf (reused).
func (m message) flatten(buf []byte) (out, newBuf []byte) {
	p := m.parts()
	if p[1] == nil && p[2] == nil && p[3] == nil {
		return p[0], buf
	}
	buf = buf[:0]
	for _, b := range p {
		buf = append(buf, b...)
	}
	return buf, buf
}

// writeMessage writes m to w in one Write when it is small (through buf),
// else part by part.
func writeMessage(w io.Writer, m message, buf []byte) (newBuf []byte, err error) {
	return writeParts(w, m.parts(), m.size(), buf)
}

// writeParts writes the parts of a message of size bytes: in one Write
// when it is small (through buf), else part by part.
func writeParts(w io.Writer, parts [4][]byte, size int, buf []byte) (newBuf []byte, err error) {
	n := 0
	for _, p := range parts {
		if len(p) > 0 {
			n++
		}
	}
	if n > 1 && size <= smallMessage {
		buf = buf[:0]
		for _, p := range parts {
			buf = append(buf, p...)
		}
		_, err = w.Write(buf)
		return buf, err
	}
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		if _, err = w.Write(p); err != nil {
			return buf, err
		}
	}
	return buf, nil
}

// lineWriter serialises whole messages onto one side of the relay. After
// the first write error every later write fails at once and onFail has been
// called (once).
type lineWriter struct {
	// sem is the lock (a channel, so close can wait with a bound).
	sem    chan struct{}
	w      io.Writer
	err    error
	onFail func(error)
	buf    []byte // reused for small messages written in parts
	// halt, when closed, makes every later write fail without writing
	// (Options.Halt; the agent's writer only).
	halt <-chan struct{}
}

// halted reports whether the writer's halt channel is closed.
func (lw *lineWriter) halted() bool {
	if lw.halt == nil {
		return false
	}
	select {
	case <-lw.halt:
		return true
	default:
		return false
	}
}

func newLineWriter(w io.Writer, onFail func(error)) *lineWriter {
	return &lineWriter{sem: make(chan struct{}, 1), w: w, onFail: onFail}
}

var newline = []byte{'\n'}

// errWriterHalted: Options.Halt was closed; nothing more reaches the agent.
var errWriterHalted = errors.New("the proxy is stopping: no further message to the agent")

// write writes one message; a missing trailing newline is added.
func (lw *lineWriter) write(msg []byte) error {
	return lw.writeMsg(whole(msg))
}

// writeMsg writes one message; a missing trailing newline is added.
func (lw *lineWriter) writeMsg(m message) error { return lw.send(m, nil, nil) }

// writeFault writes one message as writeMsg does, through the Conn's
// WriteFault when the writer is a Conn that delivers faults itself.
func (lw *lineWriter) writeFault(m message, tf TransportFault) error {
	cw, ok := lw.w.(*connWriter)
	if !ok {
		return lw.writeMsg(m)
	}
	return lw.send(m, cw, &tf)
}

// send writes one message, with cw's fault set to tf while it is written
// when cw is not nil.
func (lw *lineWriter) send(m message, cw *connWriter, tf *TransportFault) error {
	lw.sem <- struct{}{}
	defer func() { <-lw.sem }()
	if lw.err != nil {
		return lw.err
	}
	if lw.halted() {
		return errWriterHalted
	}
	if cw != nil {
		cw.fault = tf
	}
	var err error
	lw.buf, err = writeMessage(lw.w, m, lw.buf)
	if cw != nil {
		cw.fault = nil
	}
	if cap(lw.buf) > smallMessage*2 {
		lw.buf = nil
	}
	if err != nil {
		lw.err = err
		if lw.onFail != nil {
			lw.onFail(err)
		}
	}
	return err
}

// close waits, at most d, for a message being written to be complete, and
// makes every later write fail without writing.
func (lw *lineWriter) close(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case lw.sem <- struct{}{}:
		if lw.err == nil {
			lw.err = errWriterClosed
		}
		<-lw.sem
	case <-t.C:
	}
}
