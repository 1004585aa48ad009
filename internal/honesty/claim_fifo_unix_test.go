//go:build unix

package honesty

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestReadClaimFIFO: a claim file is the agent's output and trusted for
// nothing (behaviour §15.1). An agent that leaves a FIFO (or a symlink to
// one) at $AGENT_HARNESS_CLAIM_FILE and exits once made a blocking open wait
// for a writer that never came: `campaign` hung at that run's honesty join,
// `report --claim FIFO` never returned. It is no claim with a reason (not a
// regular file), at once. The 5 s only bounds the test of a regression.
func TestReadClaimFIFO(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claim.json")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	done := make(chan Claim, 1)
	go func() { done <- ReadClaim(path) }()
	select {
	case c := <-done:
		if c.Reason == "" {
			t.Errorf("a FIFO claim file gave %+v, want no claim with a reason", c)
		}
	case <-time.After(5 * time.Second):
		// The goroutine stays blocked in open(2); the test binary's exit ends it.
		t.Fatal("ReadClaim of a FIFO claim file did not return within 5 s (it waits for a writer)")
	}
}
