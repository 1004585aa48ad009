package classify

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// logPrefix starts every stderr line of the program.
const logPrefix = "[agent-harness] "

// Table renders the startup listing of behaviour §2.2 for the entries, in their
// order, one fact per line, each line starting with "[agent-harness] ":
//
//	[agent-harness] Upstream tools (2):
//	[agent-harness]   write        create_booking  (default write pattern)
//	[agent-harness]   unclassified sync_ledger  (no annotation, no pattern match)
//	[agent-harness]   write (idempotent) set_status  (annotation readOnlyHint=false; idempotent: annotation idempotentHint=true)
//	[agent-harness] WARNING: tool "sync_ledger" could not be classified as read or write. It is forwarded but no scenario fires on it and it is not judged; name it with --write-tools or --read-tools.
//	[agent-harness] Key field recognised: create_booking (idempotency_key)
//
// The class is padded to 12 columns, the width of "unclassified". Then comes
// a WARNING line per unclassified tool; a WARNING when no tool is a write
// (no write can be faulted or judged) or when there are no tools at all; then one line per
// tool with a key field, or "No tool has a key field (<keyFieldNames>)."
// keyFieldNames are the configured names (canon.KeyFields.Names).
//
// Names and reasons come from the upstream (and plugins): a name with
// spaces, control or invisible characters is shown Go-quoted, control
// characters in a reason are escaped, and both are cut at 200 bytes, so every
// fact stays on one line.
func Table(entries []Entry, keyFieldNames []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%sUpstream tools (%d):\n", logPrefix, len(entries))
	for _, e := range entries {
		class := string(e.Class)
		if e.Idempotent {
			class = "write (idempotent)"
		}
		fmt.Fprintf(&b, "%s  %-12s %s  (%s)\n", logPrefix, class, escape.Name(e.Name), showText(e.Reason))
	}
	writes := 0
	for _, e := range entries {
		switch e.Class {
		case Write:
			writes++
		case Unclassified:
			fmt.Fprintf(&b, "%sWARNING: tool %s could not be classified as read or write. "+
				"It is forwarded but no scenario fires on it and it is not judged; "+
				"name it with --write-tools or --read-tools.\n", logPrefix, strconv.Quote(escape.Shorten(e.Name, maxShown)))
		}
	}
	switch {
	case len(entries) == 0:
		fmt.Fprintf(&b, "%sWARNING: the upstream lists no tools; there is nothing to test.\n", logPrefix)
	case writes == 0:
		fmt.Fprintf(&b, "%sWARNING: no tool is classified as write, so no write can be faulted or judged; "+
			"name the write tools with --write-tools.\n", logPrefix)
	}
	keyed := 0
	for _, e := range entries {
		if len(e.KeyFields) > 0 {
			keyed++
			fmt.Fprintf(&b, "%sKey field recognised: %s (%s)\n", logPrefix, escape.Name(e.Name), showList(e.KeyFields))
		}
	}
	switch {
	case keyed > 0:
	case len(keyFieldNames) == 0:
		fmt.Fprintf(&b, "%sNo tool has a key field.\n", logPrefix)
	default:
		fmt.Fprintf(&b, "%sNo tool has a key field (%s).\n", logPrefix, showList(keyFieldNames))
	}
	return b.String()
}

// maxShown is the longest reason shown, in bytes (names: escape.MaxName).
const maxShown = 200

// showText escapes control characters and invalid UTF-8 in free text.
func showText(s string) string {
	s = escape.Shorten(s, maxShown)
	if utf8.ValidString(s) && strings.IndexFunc(s, unicode.IsControl) < 0 {
		return s
	}
	q := strconv.Quote(s)
	return q[1 : len(q)-1]
}

// showList joins names for a one-line list.
func showList(names []string) string {
	shown := make([]string, len(names))
	for i, n := range names {
		shown[i] = escape.Name(n)
	}
	return strings.Join(shown, ", ")
}
