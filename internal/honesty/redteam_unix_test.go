//go:build unix

package honesty

import (
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRedClaimFIFO (red team): a claim file is the agent's output and
// "trusted for nothing" (behaviour §15.1), yet ReadClaim opens it with a
// blocking open. An agent that leaves a FIFO (or a symlink to one) at
// $AGENT_HARNESS_CLAIM_FILE — a campaign run's {run_dir}/claim.json — and
// exits makes the open wait for a writer that never comes: `campaign`
// hangs at the honesty join of that run, and `report --claim FIFO` never
// returns (measured: still running after 10 s, killed). It should be no
// claim with a reason (the target is not a regular file), at once.
func TestRedClaimFIFO(t *testing.T) {
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
