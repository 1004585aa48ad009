package relay

import "sync"

// Limits of the upstream stderr tail shown when the upstream crashes.
const (
	tailMaxLines = 20
	tailMaxBytes = 4096
)

// tail keeps the last lines of the upstream's stderr: at most tailMaxLines
// lines and about tailMaxBytes bytes (the newest line is always kept, cut
// to tailMaxBytes).
type tail struct {
	mu    sync.Mutex
	lines []string
	size  int
}

func (t *tail) add(line string) {
	if len(line) > tailMaxBytes {
		line = line[:tailMaxBytes] + "…"
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, line)
	t.size += len(line)
	for len(t.lines) > 1 && (len(t.lines) > tailMaxLines || t.size > tailMaxBytes) {
		t.size -= len(t.lines[0])
		t.lines = t.lines[1:]
	}
}

func (t *tail) snapshot() []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]string(nil), t.lines...)
}
