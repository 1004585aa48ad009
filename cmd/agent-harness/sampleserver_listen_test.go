package main

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
)

// lineWriter sends each write (one stderr line) on a channel.
type lineWriter struct {
	mu    sync.Mutex
	lines chan string
}

func (w *lineWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.lines <- string(b)
	return len(b), nil
}

// TestSampleServerListenBindsLoopback: `sample-server --listen :0` (and
// `--listen 0`) binds 127.0.0.1 as the proxy does, never every
// interface; a value without a port is a usage error.
func TestSampleServerListenBindsLoopback(t *testing.T) {
	for _, v := range []string{":0", "0"} {
		ctx, cancel := context.WithCancel(context.Background())
		w := &lineWriter{lines: make(chan string, 4)}
		done := make(chan error, 1)
		go func() {
			done <- runSampleServer(ctx, []string{"--listen", v}, stdio{in: strings.NewReader(""), out: io.Discard, err: w})
		}()
		var line string
		select {
		case line = <-w.lines:
		case err := <-done:
			cancel()
			t.Fatalf("--listen %s: ended before listening: %v", v, err)
		}
		cancel()
		if err := <-done; err != nil {
			t.Fatalf("--listen %s: %v", v, err)
		}
		if !strings.HasPrefix(line, "[agent-harness] sample-server: listening on http://127.0.0.1:") {
			t.Errorf("--listen %s: %q, want a loopback address", v, line)
		}
	}
	err := runSampleServer(context.Background(), []string{"--listen", "abc"}, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	if err == nil || !strings.Contains(err.Error(), `flag --listen: "abc" has no port number 0–65535`) {
		t.Errorf("--listen abc: %v", err)
	}
}
