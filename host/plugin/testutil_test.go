package plugin_test

import (
	"bytes"
	"os"
	"sync"
	"testing"
)

var (
	cacheOnce sync.Once
	cacheDir  string
)

// sharedCache is one compilation cache directory for the test binary, so
// the Go plugins compile once per run.
func sharedCache(t testing.TB) string {
	cacheOnce.Do(func() {
		d, err := os.MkdirTemp("", "plugin-cache-")
		if err != nil {
			t.Fatal(err)
		}
		cacheDir = d
	})
	return cacheDir
}

// logBuffer is a concurrency-safe io.Writer.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
