package relay

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/builtin/classify"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// toolSet is the learned upstream tool list, replaced as a whole.
type toolSet struct {
	order   []ToolInfo
	listing *classify.Listing
}

func newToolSet(infos []ToolInfo) *toolSet {
	return &toolSet{order: infos, listing: classify.NewListing(infos)}
}

// lookup returns the tool's entry; a tool the upstream did not list is
// classify.Unknown.
func (ts *toolSet) lookup(name string) ToolInfo {
	return ts.listing.Lookup(name)
}

// has reports whether the upstream listed the tool.
func (ts *toolSet) has(name string) bool {
	return ts.listing.Lookup(name).Class != classify.Unknown
}

// classifyTool classifies one raw tool object as the upstream sent it
// (classify.EntryOf, which the offline judge uses too); the entry keeps a
// copy of the raw definition for the trace.
func (s *session) classifyTool(raw []byte) (ToolInfo, bool) {
	e, ok := classify.EntryOf(raw, s.opts.Classify, s.opts.KeyField)
	if ok {
		e.OutputSchema = hasOutputSchema(raw)
	}
	return e, ok
}

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
