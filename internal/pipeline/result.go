package pipeline

import "github.com/cuonztech/agent-harness/internal/wire"

// maxNestingDepth is encoding/json's limit on nested arrays and objects;
// deeper input is invalid for it, and so here.
const maxNestingDepth = 10000

// resultScan is what scanResult reads from a raw CallToolResult.
type resultScan struct {
	// isError: the result has "isError": true.
	isError bool
	// resultType is the raw JSON value of the top-level resultType member
	// (MCP 2026-07-28), nil when there is none.
	resultType []byte
}

// resultNames are the CallToolResult members scanResult reads.
var resultNames = []string{"isError", "resultType"}

// scanResult reads a raw CallToolResult's top-level isError and resultType
// members; ok is false when result is not a JSON object. Any isError value
// but true (absent, false, not a boolean) is not an error, as for MCP
// clients.
//
// It gives exactly the answer of json.Unmarshal into a struct with
// `isError` and `resultType` json.RawMessage fields (tested against that
// by FuzzIsErrorResult), in one pass of the relay's scanner (internal/wire)
// without allocating: the whole input is validated as encoding/json does
// (any syntax error, or nesting deeper than 10,000 levels, is not an
// object), only top-level members are compared with the two names, member
// names match as encoding/json matches field names (escapes decoded,
// case-insensitively with Unicode simple folding), and the last matching
// member decides. encoding/json itself costs 5–7 times as much
// (BENCHMARKS.md, RATIONALE.md).
func scanResult(result []byte) (s resultScan, ok bool) {
	depth := 1
	end, err := wire.Members(result, func(m wire.Member) bool {
		depth = max(depth, 1+m.Depth)
		switch name, _ := m.NameFolds(resultNames); name {
		case "isError":
			s.isError = string(m.Value) == "true"
		case "resultType":
			s.resultType = m.Value
		}
		return true
	})
	if err != nil || depth > maxNestingDepth {
		return resultScan{}, false
	}
	for _, c := range result[end:] {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' {
			return resultScan{}, false
		}
	}
	return s, true
}
