package relay

import (
	"fmt"
	"io"
	"strings"
	"sync"
)

// logPrefix starts every line the proxy writes to stderr.
const logPrefix = "[agent-harness] "

// logger writes whole prefixed lines to stderr; one call's lines are never
// interleaved with another's.
type logger struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *logger) Printf(format string, args ...any) {
	l.Lines(fmt.Sprintf(format, args...))
}

// Lines writes each line with the prefix, in one write.
func (l *logger) Lines(lines ...string) {
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(logPrefix)
		b.WriteString(line)
		b.WriteByte('\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, b.String())
}

// Raw writes text that already has its prefixes and newlines.
func (l *logger) Raw(text string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, text)
}
