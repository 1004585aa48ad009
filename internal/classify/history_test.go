package classify

import (
	"strings"
	"testing"
)

// A re-listing makes a tool stricter, never laxer (behaviour §2.2, §4.8):
// once a write, always a write; once a non-idempotent write, never
// idempotent; the first listing and stricter changes pass unchanged, and
// Apply never modifies the listing it is given.
func TestHistoryStricterNeverLaxer(t *testing.T) {
	var h History
	first := []Entry{
		{Name: "book", Class: Write, Reason: "w"},
		{Name: "note", Class: Write, Reason: "w", Idempotent: true},
		{Name: "get", Class: Read, Reason: "r"},
	}
	if got := h.Apply(first); &got[0] != &first[0] {
		t.Errorf("the first listing was copied: %+v", got)
	}
	second := []Entry{
		{Name: "book", Class: Read, Reason: "readOnlyHint"},
		{Name: "note", Class: Write, Reason: "w"}, // idempotent → not: stricter
		{Name: "get", Class: Write, Reason: "w"},  // read → write: stricter
		{Name: "new", Class: Unclassified, Reason: "u"},
	}
	got := h.Apply(second)
	if second[0].Class != Read {
		t.Fatalf("Apply modified its input: %+v", second[0])
	}
	if got[0].Class != Write || !strings.HasSuffix(got[0].Reason, StillWriteReason) || got[1].Idempotent || got[2].Class != Write || got[3].Class != Unclassified {
		t.Errorf("second listing %+v", got)
	}
	third := h.Apply([]Entry{
		{Name: "book", Class: Unclassified, Reason: "u"},
		{Name: "note", Class: Write, Reason: "w", Idempotent: true},
	})
	if third[0].Class != Write || third[1].Idempotent || !strings.HasSuffix(third[1].Reason, StillStrictReason) {
		t.Errorf("third listing %+v", third)
	}
	if e := h.Stricter(Entry{Name: "book", Class: Unknown}); e.Class != Unknown {
		t.Errorf("a tool not listed now stays unknown: %+v", e)
	}
}
