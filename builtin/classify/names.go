package classify

import "strings"

// defaultWriteVerbs are the default write patterns of SPEC §4.2 without their
// `_*`: `create` stands for the glob `create_*` and its camelCase form
// (`createAppointment`). `write` is special: its pattern is `write*`, which
// already covers `write`, `write_file` and `writeFile`. --write-tools replaces
// the whole list.
var defaultWriteVerbs = []string{
	"write", "create", "send", "submit", "post", "update", "insert", "book",
	"pay", "charge", "cancel", "delete", "confirm", "place", "add", "register",
	"schedule", "transfer", "refund", "reserve", "issue", "remove", "withdraw",
	"deposit", "purchase", "approve",
}

// readVerbs are the read prefixes of SPEC §4.2. A name is a read when it is
// the verb alone (`list`), the verb then `_` (`get_booking`), or the verb then
// an ASCII upper-case letter (`getBooking`). `getaway` is not a read.
var readVerbs = []string{
	"get", "list", "read", "search", "find", "fetch", "query", "check",
	"lookup", "describe", "show", "view", "count",
}

// Names is the last opinionated stage: name patterns. Write patterns are
// tried first, so a name matching both (`update_status_view`) is a write.
//
// Write verbs match `verb_…` and `verbX…` (camelCase), never the bare verb,
// exactly as the SPEC's globs: a tool called `add` is as likely to add two
// numbers as to add a record. Read verbs also match the bare verb (`list`,
// `search`): a tool named only by a reading verb reads.
//
// Known misfires (the price of name heuristics, SPEC §4.2): `check_in_guest`
// (a write) is a read, `update_status_view` (a read) is a write. Namespaced
// names (`bookings.create`, `crm__create_lead`) and kebab-case
// (`create-booking`) match nothing and stay unclassified.
type Names struct {
	// writeVerbs is nil when --write-tools replaced the default list.
	writeVerbs []string
}

// NewNames returns the name-pattern stage. With defaultWrites false (the user
// gave --write-tools) only the read prefixes remain.
func NewNames(defaultWrites bool) *Names {
	n := &Names{}
	if defaultWrites {
		n.writeVerbs = defaultWriteVerbs
	}
	return n
}

// Classify implements Classifier.
func (n *Names) Classify(t Tool) (Result, bool) {
	for _, v := range n.writeVerbs {
		if v == "write" && strings.HasPrefix(t.Name, v) || verbPrefixed(t.Name, v) {
			return Result{Class: Write, Reason: "default write pattern"}, true
		}
	}
	for _, v := range readVerbs {
		if t.Name == v || verbPrefixed(t.Name, v) {
			return Result{Class: Read, Reason: "read prefix"}, true
		}
	}
	return Result{}, false
}

// verbPrefixed reports whether name is verb followed by `_` or by an ASCII
// upper-case letter.
func verbPrefixed(name, verb string) bool {
	if len(name) <= len(verb) || !strings.HasPrefix(name, verb) {
		return false
	}
	c := name[len(verb)]
	return c == '_' || 'A' <= c && c <= 'Z'
}

// DefaultWritePatterns returns the default write patterns as SPEC §4.2 writes
// them (`write*`, `create_*`, …), for usage texts. Each `verb_*` also matches
// its camelCase form.
func DefaultWritePatterns() []string {
	ps := make([]string, len(defaultWriteVerbs))
	for i, v := range defaultWriteVerbs {
		if v == "write" {
			ps[i] = "write*"
		} else {
			ps[i] = v + "_*"
		}
	}
	return ps
}

// ReadPrefixes returns the read prefixes (`get`, `list`, …), for usage texts.
func ReadPrefixes() []string {
	return append([]string(nil), readVerbs...)
}
