package plugin

import (
	"bytes"
	"fmt"
	"io"
	"sync"
)

// maxPartialLine is flushed as a line even without a newline.
const maxPartialLine = 4 << 10

// capLog collects a plugin's output: complete lines are forwarded to w with
// the "[agent-harness] plugin NAME: " prefix and kept for Status, until
// limit bytes; then one notice is written and the rest dropped.
type capLog struct {
	mu      sync.Mutex
	w       io.Writer
	name    string
	limit   int
	used    int
	kept    bytes.Buffer
	partial map[string][]byte
	full    bool
}

func newCapLog(w io.Writer, name string, limit int) *capLog {
	return &capLog{w: w, name: name, limit: limit, partial: map[string][]byte{}}
}

func (l *capLog) setName(name string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.name = name
}

// write takes one write of stream ("stdout", "stderr" or a log level).
//
// The work per write is bounded by what can still be shown, not by len(p):
// a guest may hand over all of its memory (fd_write takes up to 1,024 such
// buffers in one call, and a host function cannot be stopped by the call's
// deadline), so once the limit is reached writes are dropped at once, and
// before that only the bytes that could still fit are looked at.
func (l *capLog) write(stream string, p []byte) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.full {
		return
	}
	if room := l.limit - l.used + maxPartialLine + 1; len(p) > room {
		p = p[:room]
	}
	buf := append(l.partial[stream], p...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		l.line(buf[:i])
		buf = buf[i+1:]
	}
	if len(buf) >= maxPartialLine {
		l.line(buf)
		buf = nil
	}
	l.partial[stream] = append([]byte(nil), buf...)
}

func (l *capLog) line(b []byte) {
	if l.full {
		return
	}
	if l.used+len(b)+1 > l.limit {
		l.full = true
		fmt.Fprintf(l.w, "[agent-harness] plugin %s: output limit (%d bytes) reached; further output dropped\n", l.name, l.limit)
		return
	}
	l.used += len(b) + 1
	l.kept.Write(b)
	l.kept.WriteByte('\n')
	fmt.Fprintf(l.w, "[agent-harness] plugin %s: %s\n", l.name, b)
}

func (l *capLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.kept.String()
}
