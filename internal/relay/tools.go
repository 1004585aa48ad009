package relay

// The bytes of tool listings: reading a tools/list result and adding the
// extra tools or the tools capability without changing any other byte.

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// hasOutputSchema reports whether a raw tool object declares an
// outputSchema (present and not null).
func hasOutputSchema(raw []byte) bool {
	v, _, ok := wire.Lookup(raw, "outputSchema")
	return ok && !wire.IsNull(v)
}

// toolsPage is one parsed tools/list result.
type toolsPage struct {
	tools      [][]byte // raw tool objects, sub-slices of the result
	nextCursor []byte   // raw cursor value; nil on the last page
	// closing is the offset, within the result, of the tools array's ']'
	// and empty says the array has no elements; closing < 0 when the
	// result has no tools array.
	closing int
	empty   bool
}

// parseToolsPage reads a tools/list result without changing it.
func parseToolsPage(result []byte) toolsPage {
	p := toolsPage{closing: -1}
	var toolsRaw []byte
	toolsStart := 0
	_, _ = wire.Members(result, func(m wire.Member) bool {
		switch {
		case m.KeyIs("tools"):
			toolsRaw, toolsStart = m.Value, m.ValueStart
		case m.KeyIs("nextCursor"):
			p.nextCursor = m.Value
		}
		return true
	})
	if isLastCursor(p.nextCursor) {
		p.nextCursor = nil
	}
	if len(toolsRaw) == 0 || toolsRaw[0] != '[' {
		return p
	}
	closing, err := wire.Elements(toolsRaw, func(elem []byte, _ int) {
		p.tools = append(p.tools, elem)
	})
	if err != nil {
		p.tools = nil
		return p
	}
	p.closing = toolsStart + closing
	p.empty = len(p.tools) == 0
	return p
}

// isLastCursor reports whether a nextCursor value ends the listing: absent,
// null, or an empty string.
func isLastCursor(raw []byte) bool {
	return wire.IsNull(raw) || string(raw) == `""`
}

// appendTools inserts extra tool objects at the end of the tools array of
// the result that starts at resultStart in line; every other byte stays.
func appendTools(line []byte, resultStart int, page toolsPage, extras []json.RawMessage) []byte {
	if len(extras) == 0 || page.closing < 0 {
		return line
	}
	at := resultStart + page.closing
	n := len(line)
	for _, e := range extras {
		n += len(e) + 1
	}
	out := make([]byte, 0, n)
	out = append(out, line[:at]...)
	for i, e := range extras {
		if i > 0 || !page.empty {
			out = append(out, ',')
		}
		out = append(out, e...)
	}
	return append(out, line[at:]...)
}

// hasToolsCapability reports whether an initialize or server/discover
// result announces tools.
func hasToolsCapability(result []byte) bool {
	if caps, _, ok := wire.Lookup(result, "capabilities"); ok {
		if t, _, ok := wire.Lookup(caps, "tools"); ok && !wire.IsNull(t) {
			return true
		}
	}
	return false
}

// addToolsCapability adds "tools":{} to the capabilities of an initialize
// result that has none, leaving every other byte as it was.
func addToolsCapability(line []byte, env wire.Envelope) []byte {
	res := env.Result
	at := -1
	insert := ""
	if caps, capsStart, ok := wire.Lookup(res, "capabilities"); ok && len(caps) > 0 && caps[0] == '{' {
		at = env.ResultStart + capsStart + 1
		insert = `"tools":{}`
		if !isEmptyObject(caps) {
			insert += ","
		}
	} else if !ok && len(res) > 0 && res[0] == '{' {
		at = env.ResultStart + 1
		insert = `"capabilities":{"tools":{}}`
		if !isEmptyObject(res) {
			insert += ","
		}
	}
	if at < 0 {
		return line
	}
	out := make([]byte, 0, len(line)+len(insert))
	out = append(out, line[:at]...)
	out = append(out, insert...)
	return append(out, line[at:]...)
}

func isEmptyObject(obj []byte) bool {
	n := 0
	_, _ = wire.Members(obj, func(wire.Member) bool { n++; return false })
	return n == 0
}
