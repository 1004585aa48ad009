package relay

import (
	"io"
	"sync"
)

// lineWriter serialises whole messages onto one side of the relay. After
// the first write error every later write fails at once and onFail has been
// called (once).
type lineWriter struct {
	mu     sync.Mutex
	w      io.Writer
	err    error
	onFail func(error)
}

var newline = []byte{'\n'}

// write writes one message; a missing trailing newline is added.
func (lw *lineWriter) write(msg []byte) error {
	lw.mu.Lock()
	defer lw.mu.Unlock()
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
