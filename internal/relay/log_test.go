package relay

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// TestQuietLogger: when quiet, the classification table shrinks to its
// WARNING lines and notes are dropped; warnings and errors written with
// Printf stay.
func TestQuietLogger(t *testing.T) {
	table := classify.Table([]ToolInfo{
		{Name: "create_booking", Class: classify.Write, Reason: "default write pattern"},
		{Name: "sync_ledger", Class: classify.Unclassified, Reason: "no annotation, no pattern match"},
	}, []string{"idempotency_key"})
	for _, quiet := range []bool{false, true} {
		var b strings.Builder
		l := &logger{w: &b, quiet: quiet}
		l.Table(table)
		l.Info("The upstream's tool list changed.")
		l.Printf("WARNING: something")
		l.Printf("upstream: a line of its own")
		want := table + "[agent-harness] The upstream's tool list changed.\n"
		if quiet {
			want = `[agent-harness] WARNING: tool "sync_ledger" could not be classified as read or write. It is forwarded but no scenario fires on it and it is not judged; name it with --write-tools or --read-tools.` + "\n"
		}
		want += "[agent-harness] WARNING: something\n[agent-harness] upstream: a line of its own\n"
		if b.String() != want {
			t.Errorf("quiet %v:\n got %q\nwant %q", quiet, b.String(), want)
		}
	}
}
