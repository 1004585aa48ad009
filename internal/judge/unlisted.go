package judge

import (
	"fmt"
	"strings"
)

// onTools checks the tools called while the upstream did not list them
// against a new listing: one that is now a write was a write forwarded
// unjudged, and the run cannot pass (a wrong PASS otherwise: it may have
// executed twice).
func (j *Judge) onTools(ev Event) {
	if j.tools.unknownWrite != "" || len(j.tools.unknown.names) == 0 {
		return
	}
	for _, name := range ev.Tools {
		if _, ok := j.tools.unknown.idx[name]; ok {
			j.tools.unknownWrite = name
			return
		}
	}
}

// unlistedNote is the verdict reason's note on calls of tools the upstream
// did not list: forwarded, not judged. Empty when there were none.
func (j *Judge) unlistedNote() string {
	n := j.cov.byClass.Unknown
	if n == 0 {
		return ""
	}
	names := j.tools.unknown.names
	shown := names
	if len(shown) > 3 {
		shown = shown[:3]
	}
	list := make([]string, len(shown))
	for i, name := range shown {
		list[i] = fmt.Sprintf("%q", name)
	}
	more := ""
	if len(names) > len(shown) {
		more = fmt.Sprintf(" and %d more", len(names)-len(shown))
	}
	return fmt.Sprintf(" %d call(s) of tools the upstream did not list (%s%s) were forwarded without being judged.", n, strings.Join(list, ", "), more)
}
