package classify

import "strings"

// defaultWriteVerbs are the default write patterns of behaviour §2.2 without their
// `_*`: `create` stands for the glob `create_*` and its other spellings
// (see Names). `write` is special: its pattern is `write*`, which already
// covers `write`, `write_file` and `writeFile`. --write-tools replaces the
// whole list.
var defaultWriteVerbs = []string{
	"write", "create", "send", "submit", "post", "update", "insert", "book",
	"pay", "charge", "cancel", "delete", "confirm", "place", "add", "register",
	"schedule", "transfer", "refund", "reserve", "issue", "remove", "withdraw",
	"deposit", "purchase", "approve",
}

// readVerbs are the read prefixes of behaviour §2.2. A name is a read when it is
// the verb alone (`list`, `List`) or the verb followed by a word boundary
// (`get_booking`, `getBooking`, `GetBooking`, `get-booking`). `getaway` is
// not a read.
var readVerbs = []string{
	"get", "list", "read", "search", "find", "fetch", "query", "check",
	"lookup", "describe", "show", "view", "count",
}

// Names is the last opinionated stage: name patterns (behaviour §2.2, §11.3).
// Write patterns are tried first, so a name matching both
// (`update_status_view`) is a write.
//
// Only the last segment of a namespaced name counts: the part after the last
// `.`, `/`, `:` or run of two or more `_` (`crm__create_lead`,
// `crm.createLead`, `billing/charge-card`), so `create_x__list_y` is a
// read. Separators at the end are skipped (`create_booking/` is
// `create_booking`). In that segment a verb matches in lower case or
// capitalised (`create`, `Create`, never `CREATE`) when a word boundary
// follows it: `_`, `-` or an ASCII upper-case letter, so snake_case,
// camelCase, PascalCase and kebab-case all match and `Address` or `getaway`
// do not.
//
// Write verbs never match alone (`add`, `bookings.create`): a tool called
// `add` is as likely to add two numbers as to add a record. Read verbs also
// match alone (`list`, `crm.search`): a tool named only by a reading verb
// reads. The lower-case `write` is the glob `write*` and also matches
// `writer`.
//
// Known misfires (the price of name heuristics): `check_in_guest` (a write)
// is a read, `update_status_view` (a read) is a write; docs/proxy.md lists them
// all and a test keeps that list true.
//
// Matching is linear in the name's length: one backward scan finds the last
// segment, then a fixed number of prefix comparisons; no regular expression.
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
	s := lastSegment(t.Name)
	for _, v := range n.writeVerbs {
		if v == "write" && strings.HasPrefix(s, v) || verbFirst(s, v, false) {
			return Result{Class: Write, Reason: "default write pattern"}, true
		}
	}
	for _, v := range readVerbs {
		if verbFirst(s, v, true) {
			return Result{Class: Read, Reason: "read prefix"}, true
		}
	}
	return Result{}, false
}

// lastSegment returns the part of name after its last namespace separator,
// ignoring separators at the end: `crm__create_lead` → `create_lead`,
// `a.b.c` → `c`, `crm.get.` → `get`, `..` → "".
func lastSegment(name string) string {
	end := len(name)
	for end > 0 {
		n := separatorBefore(name, end)
		if n == 0 {
			break
		}
		end -= n
	}
	start := end
	for start > 0 && separatorBefore(name, start) == 0 {
		start--
	}
	return name[start:end]
}

// separatorBefore returns the length of the namespace separator that ends
// at name[i-1]: 1 for `.`, `/` or `:`, the length of a run of two or more
// `_`, else 0. A single `_` separates words, not namespaces.
func separatorBefore(name string, i int) int {
	switch name[i-1] {
	case '.', '/', ':':
		return 1
	case '_':
		j := i - 1
		for j > 0 && name[j-1] == '_' {
			j--
		}
		if i-j >= 2 {
			return i - j
		}
	}
	return 0
}

// verbFirst reports whether s starts with verb (lower case) or with verb
// capitalised, followed by `_`, `-` or an ASCII upper-case letter, or by
// nothing when bare is true.
func verbFirst(s, verb string, bare bool) bool {
	if len(s) < len(verb) || s[1:len(verb)] != verb[1:] {
		return false
	}
	if c := s[0]; c != verb[0] && c != verb[0]-'a'+'A' {
		return false
	}
	if len(s) == len(verb) {
		return bare
	}
	c := s[len(verb)]
	return c == '_' || c == '-' || 'A' <= c && c <= 'Z'
}

// DefaultWritePatterns returns the default write patterns as behaviour §2.2 writes
// them (`write*`, `create_*`, …), for usage texts. Each `verb_*` also matches
// its other spellings (camelCase, PascalCase, kebab-case, namespaced).
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
