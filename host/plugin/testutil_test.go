package plugin_test

import (
	"bytes"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/host/plugin/plugintest"
)

var (
	cacheOnce sync.Once
	cacheDir  string
)

// sharedCache is one compilation cache directory for the test binary, so
// the Go plugins compile once per run.
func sharedCache(t testing.TB) string {
	cacheOnce.Do(func() { cacheDir = plugintest.CacheDir(t) })
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
