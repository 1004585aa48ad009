package classify

import (
	"encoding/json"
	"slices"
)

// Entry is one listed tool with its classification and its key fields, as
// the startup table shows it and as the report file's `toolClassification`
// holds it (behaviour §5): {"name","class","reason","keyFields":[...]}, with
// "idempotent": true added for idempotent write tools (behaviour §4.8).
type Entry struct {
	Name      string   `json:"name"`
	Class     Class    `json:"class"`
	Reason    string   `json:"reason"`
	KeyFields []string `json:"keyFields"`
	// Idempotent: a write tool whose repeats have no additional effect
	// (idempotentHint or --idempotent-tools). Scenarios do not fire on it
	// and repeats of its operations are no violation.
	Idempotent bool `json:"idempotent,omitempty"`
	// OutputSchema is true when the tool's definition declares an
	// outputSchema (clients then validate its results, behaviour §3.3). Not
	// part of the report.
	OutputSchema bool `json:"-"`
	// Definition is the raw tool object as the upstream listed it (kept for
	// the trace, behaviour §7); never part of the JSON encoding.
	Definition json.RawMessage `json:"-"`
}

// MarshalJSON encodes the entry with `keyFields` always an array ([] when
// there are none, never null).
func (e Entry) MarshalJSON() ([]byte, error) {
	type plain Entry
	if e.KeyFields == nil {
		e.KeyFields = []string{}
	}
	return json.Marshal(plain(e))
}

// Entries classifies the tools the upstream listed, in their order, and finds
// their key fields with keyMatch (canon.KeyFields.Match).
func (c *Chain) Entries(tools []Tool, keyMatch func(string) bool) []Entry {
	es := make([]Entry, 0, len(tools))
	for _, t := range tools {
		r := c.Classify(t)
		es = append(es, Entry{Name: t.Name, Class: r.Class, Reason: r.Reason, KeyFields: KeyFieldsOf(t.InputSchema, keyMatch),
			Idempotent: r.Idempotent})
	}
	return es
}

// notListedReason is the reason of every call to a tool the upstream did not
// list.
const notListedReason = "not in the upstream's tool list"

// NotListed is the result for a call to a tool the upstream did not list: it
// is Unknown, whatever its name or a --write-tools glob say (behaviour §2.2). Such
// tools are never passed to a Chain; the relay answers them with this.
func NotListed() Result {
	return Result{Class: Unknown, Reason: notListedReason}
}

// Listing answers "what is this tool?" for the calls of a session, from the
// entries of the upstream's last tool list. The zero Listing lists nothing.
// A Listing is immutable; build a new one when the tool list changes.
type Listing struct {
	byName map[string]Entry
}

// NewListing indexes entries by name. A name listed twice with different
// classes becomes Unclassified (which definition the upstream runs is not
// knowable, and an unclassified tool is neither faulted nor judged); the key
// fields of all its definitions are merged. It is idempotent only when every
// definition says so (a repeat of a write that may not be idempotent must
// not pass unjudged), and it has an outputSchema when any of them declares
// one.
func NewListing(entries []Entry) *Listing {
	l := &Listing{byName: make(map[string]Entry, len(entries))}
	for _, e := range entries {
		prev, seen := l.byName[e.Name]
		if !seen {
			l.byName[e.Name] = e
			continue
		}
		if prev.Class != e.Class {
			prev.Class = Unclassified
			prev.Reason = "listed twice with different classifications"
		}
		prev.Idempotent = prev.Idempotent && e.Idempotent && prev.Class == Write
		prev.OutputSchema = prev.OutputSchema || e.OutputSchema
		for _, k := range e.KeyFields {
			if !slices.Contains(prev.KeyFields, k) {
				prev.KeyFields = append(slices.Clip(prev.KeyFields), k)
			}
		}
		l.byName[e.Name] = prev
	}
	return l
}

// Lookup returns the entry of a listed tool, or, for a tool the upstream did
// not list, an entry with class Unknown (see NotListed) and no key fields.
func (l *Listing) Lookup(name string) Entry {
	if l != nil {
		if e, ok := l.byName[name]; ok {
			return e
		}
	}
	r := NotListed()
	return Entry{Name: name, Class: r.Class, Reason: r.Reason}
}
