//go:build !linux

package e2e

import (
	"testing"
	"time"
)

// waitGone polls until pid is gone, failing after maxWait (elsewhere than
// Linux there is no pidfd to wait on).
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(maxWait)
	for !processGone(pid) {
		select {
		case <-tick.C:
		case <-deadline:
			tb.Fatalf("process %d still runs %s after the proxy exited", pid, maxWait)
		}
	}
}
