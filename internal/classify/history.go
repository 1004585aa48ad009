package classify

// History remembers what a run's listings said of each tool, so that a
// re-listing makes a tool stricter, never laxer (behaviour §4.8): a tool
// once classified write stays a write for the rest of the run, and a write
// once listed as not idempotent stays not idempotent. Without it an
// upstream that re-lists a write as read-only (or adds idempotentHint)
// between a booking and its re-send hides the second execution. The live
// relay's catalog and the offline re-judging both use it, so a trace
// re-judges to the live verdict. The zero History is ready to use; it is
// not safe for concurrent use.
type History struct {
	seen map[string]uint8
}

const (
	wasWrite  uint8 = 1 << iota // classified write in an earlier listing
	wasStrict                   // a write not idempotent in an earlier listing
)

// Reasons appended to an entry that History made stricter.
const (
	StillWriteReason  = "; still a write: listed as a write earlier in the run"
	StillStrictReason = "; not idempotent: listed as a non-idempotent write earlier in the run"
)

// Apply returns the entries of a new listing made stricter by the earlier
// ones (a copy where anything changed; entries is not modified) and
// records them.
func (h *History) Apply(entries []Entry) []Entry {
	out := entries
	for i, e := range entries {
		if s := h.Stricter(e); !sameClass(s, e) {
			if i == 0 || &out[0] == &entries[0] {
				out = append([]Entry(nil), entries...)
			}
			out[i] = s
		}
	}
	h.Record(out)
	return out
}

// Stricter is e made stricter by the listings recorded so far, without
// recording it: a tool that was a write is a write, one that was a
// non-idempotent write is not idempotent. An entry of a tool not listed
// (Unknown) is unchanged.
func (h *History) Stricter(e Entry) Entry {
	s := h.seen[e.Name]
	if s&wasWrite != 0 && e.Class != Write && e.Class != Unknown {
		e.Class, e.Reason, e.Idempotent = Write, e.Reason+StillWriteReason, false
	}
	if s&wasStrict != 0 && e.Idempotent {
		e.Idempotent, e.Reason = false, e.Reason+StillStrictReason
	}
	return e
}

// Record records a listing's entries as they were installed.
func (h *History) Record(entries []Entry) {
	for _, e := range entries {
		if e.Class != Write {
			continue
		}
		if h.seen == nil {
			h.seen = make(map[string]uint8)
		}
		s := h.seen[e.Name] | wasWrite
		if !e.Idempotent {
			s |= wasStrict
		}
		h.seen[e.Name] = s
	}
}

func sameClass(a, b Entry) bool { return a.Class == b.Class && a.Idempotent == b.Idempotent }
