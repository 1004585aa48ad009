package relay

import (
	"errors"
	"io"
	"time"
)

// errWriterClosed is returned by writes after close.
var errWriterClosed = errors.New("writer closed")

// lineWriter serialises whole messages onto one side of the relay. After
// the first write error every later write fails at once and onFail has been
// called (once).
type lineWriter struct {
	// sem is the lock (a channel, so close can wait with a bound).
	sem    chan struct{}
	w      io.Writer
	err    error
	onFail func(error)
}

func newLineWriter(w io.Writer, onFail func(error)) *lineWriter {
	return &lineWriter{sem: make(chan struct{}, 1), w: w, onFail: onFail}
}

var newline = []byte{'\n'}

// write writes one message; a missing trailing newline is added.
func (lw *lineWriter) write(msg []byte) error {
	lw.sem <- struct{}{}
	defer func() { <-lw.sem }()
	if lw.err != nil {
		return lw.err
	}
	_, err := lw.w.Write(msg)
	if err == nil && (len(msg) == 0 || msg[len(msg)-1] != '\n') {
		_, err = lw.w.Write(newline)
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
