// Package mcpver holds the MCP protocol-revision rules that every result
// the proxy makes itself must follow (behaviour §3.3): which revisions
// require resultType, and how a proxy-made result gets it. The fault
// package (injected results), the relay (its own tool errors, the audit
// tools' answers, a local tools/list) and the HTTP upstream (results that
// stand for HTTP errors) all ask here, so the rule is stated once.
package mcpver

import "github.com/cuonztech/agent-harness/internal/wire"

// ResultType (2026-07-28) is the first revision that requires resultType
// in every result: a CallToolResult, a ListToolsResult … says "complete".
const ResultType = "2026-07-28"

// IsDate reports whether v has the form of an MCP revision, YYYY-MM-DD.
func IsDate(v string) bool {
	if len(v) != 10 || v[4] != '-' || v[7] != '-' {
		return false
	}
	for i := range len(v) {
		if i != 4 && i != 7 && (v[i] < '0' || v[i] > '9') {
			return false
		}
	}
	return true
}

// RequiresResultType reports whether a result for a request of revision v
// must carry resultType: v is a known revision of 2026-07-28 or later. An
// unknown version (empty, not a date) gets none: a client treats an absent
// resultType as "complete" (MCP 2026-07-28, Result.resultType).
func RequiresResultType(v string) bool {
	return IsDate(v) && v >= ResultType
}

// Complete returns result (a JSON object the proxy made) as a result of
// revision v: with "resultType":"complete" appended when v requires it and
// result has no top-level resultType; otherwise result itself.
func Complete(result []byte, v string) []byte {
	if !RequiresResultType(v) || len(result) < 2 || result[len(result)-1] != '}' {
		return result
	}
	if _, _, ok := wire.Lookup(result, "resultType"); ok {
		return result
	}
	out := make([]byte, 0, len(result)+24)
	out = append(out, result[:len(result)-1]...)
	if len(result) > 2 {
		out = append(out, ',')
	}
	out = append(out, `"resultType":"complete"}`...)
	return out
}
