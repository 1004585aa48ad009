package relay

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// logPrefix starts every line the proxy writes to stderr.
const logPrefix = "[agent-harness] "

// logger writes whole prefixed lines to stderr; one call's lines are never
// interleaved with another's.
type logger struct {
	mu    sync.Mutex
	w     io.Writer
	quiet bool // Options.Quiet: Info dropped, Table reduced to its warnings
}

func (l *logger) Printf(format string, args ...any) {
	l.Lines(fmt.Sprintf(format, args...))
}

// Lines writes each line with the prefix, in one write.
func (l *logger) Lines(lines ...string) {
	var b strings.Builder
	for _, line := range lines {
		b.WriteString(logPrefix)
		b.WriteString(escape.Line(line)) // upstream text (its stderr) cannot act on the terminal
		b.WriteByte('\n')
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, b.String())
}

// Info writes lines that only inform (dropped when quiet).
func (l *logger) Info(lines ...string) {
	if !l.quiet {
		l.Lines(lines...)
	}
}

// Table writes the classification table, text that already has its
// prefixes and newlines; when quiet, only its WARNING lines.
func (l *logger) Table(text string) {
	if l.quiet {
		text = warningsOnly(text)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, _ = io.WriteString(l.w, text)
}

// warningsOnly keeps the lines of text that are warnings.
func warningsOnly(text string) string {
	var b strings.Builder
	for line := range strings.Lines(text) {
		if strings.HasPrefix(line, logPrefix+"WARNING:") {
			b.WriteString(line)
		}
	}
	return b.String()
}
