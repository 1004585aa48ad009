package relay

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/cuonztech/agent-harness/builtin/classify"
)

// tableLines renders the startup classification table of SPEC §4.2 (without
// the "[agent-harness] " prefix):
//
//	Upstream tools (2):
//	  write        create_booking  (default write pattern)
//	  unclassified sync_ledger  (no annotation, no pattern match)
//	WARNING: tool "sync_ledger" could not be classified as read or write. …
//	Key fields: create_booking (idempotency_key)
func tableLines(tools []ToolInfo) []string {
	lines := make([]string, 0, len(tools)+3)
	lines = append(lines, fmt.Sprintf("Upstream tools (%d):", len(tools)))
	for _, t := range tools {
		lines = append(lines, fmt.Sprintf("  %-12s %s  (%s)", t.Class, printable(t.Name), printable(t.Reason)))
	}
	var keyed []string
	for _, t := range tools {
		if t.Class == classify.Unclassified {
			lines = append(lines, fmt.Sprintf("WARNING: tool %s could not be classified as read or write. "+
				"It is forwarded, but no scenario fires on it and it is not judged; "+
				"name it with --write-tools or --read-tools.", strconv.Quote(t.Name)))
		}
		if len(t.KeyFields) > 0 {
			keyed = append(keyed, fmt.Sprintf("%s (%s)", printable(t.Name), printable(strings.Join(t.KeyFields, ", "))))
		}
	}
	if len(keyed) == 0 {
		lines = append(lines, "Key fields: no tool has a key field in its input schema.")
	} else {
		lines = append(lines, "Key fields: "+strings.Join(keyed, ", "))
	}
	return lines
}

// printable quotes s when it holds characters that could forge log lines.
func printable(s string) string {
	for _, r := range s {
		if !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
