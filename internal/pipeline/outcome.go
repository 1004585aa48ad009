package pipeline

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/wire"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// outcomeOf maps what forward returned to the attempt's outcome (behaviour §4.2)
// and a short detail for the report.
func outcomeOf(class classify.Class, resp relay.Response, err error) (judge.Outcome, string) {
	switch {
	case class == classify.Unknown:
		return judge.UnknownTool, ""
	case errors.Is(err, relay.ErrNoAnswer):
		return judge.Unknown, "no answer from the upstream within the call timeout"
	case errors.Is(err, relay.ErrUpstreamUnavailable):
		return judge.Unknown, "the upstream is not running"
	case err != nil:
		return judge.Unknown, "no answer from the upstream: " + err.Error()
	case resp.Error != nil:
		return judge.Unknown, fmt.Sprintf("the upstream answered JSON-RPC error %d", resp.Error.Code)
	}
	r, ok := scanResult(resp.Result)
	if !ok {
		// Not a CallToolResult: whether it executed cannot be told.
		return judge.Unknown, "the upstream's result is not a JSON object"
	}
	if kind, incomplete := incompleteResult(r.resultType); incomplete {
		// MCP 2026-07-28 multi-round-trip: the call has not completed; the
		// agent will send it again with the requested input, and that
		// follow-up continues this attempt (rounds.go). Another result type
		// this proxy does not know stays unknown.
		if kind == "input_required" {
			return judge.Incomplete, incompleteDetail(kind)
		}
		return judge.Unknown, incompleteDetail(kind)
	}
	if r.isError {
		if _, ok := notExecutedProof(resp.Result); ok {
			return judge.UpstreamNotExecuted, "the upstream's HTTP status proves the call did not reach a tool"
		}
		if outcomeMarkedUnknown(resp.Result) {
			return judge.Unknown, "the upstream's HTTP answer does not tell whether the call ran"
		}
		return judge.UpstreamRejected, ""
	}
	return judge.Executed, ""
}

// incompleteResult reads a result's raw resultType value (nil when there
// is none). A result is complete when resultType is absent, null, "" or
// "complete" (the go-sdk's reading: empty means complete); any other
// value — "input_required", another string, a value that is not a string
// — means the call did not complete, and kind names it (the string, or the
// raw JSON of another value).
func incompleteResult(raw []byte) (kind string, incomplete bool) {
	switch string(raw) {
	case "", "null", `""`, `"complete"`:
		return "", false
	}
	if raw[0] != '"' {
		return string(raw), true
	}
	var s string
	if json.Unmarshal(raw, &s) != nil {
		return string(raw), true // unreachable: scanResult validated it
	}
	if s == "" || s == "complete" {
		return "", false
	}
	return s, true
}

// incompleteNotFollowed is the detail of an attempt whose input_required
// answer no follow-up completed.
const incompleteNotFollowed = "the upstream asked for more input (resultType input_required) and the agent never completed the call: the tool did not run"

// maxKindInDetail bounds the result type quoted in a detail.
const maxKindInDetail = 64

// incompleteDetail is the report's detail for a result that is not
// complete.
func incompleteDetail(kind string) string {
	if kind == "input_required" {
		return "the upstream asked for more input (resultType input_required); the call did not complete"
	}
	kind = escape.Shorten(kind, maxKindInDetail)
	return "the upstream's result is not complete (resultType " + kind + "); the call did not complete"
}

// digest identifies the upstream's result bytes, so the judge can tell
// whether two executions got byte-identical answers.
func digest(result json.RawMessage) string {
	sum := sha256.Sum256(result)
	return hex.EncodeToString(sum[:])
}

// outcomeMarkedUnknown reports whether an isError result carries
// _meta[relay.OutcomeMetaKey] = "unknown".
func outcomeMarkedUnknown(result []byte) bool {
	meta, _, ok := wire.Lookup(result, "_meta")
	if !ok || len(meta) == 0 || meta[0] != '{' {
		return false
	}
	v, _, ok := wire.Lookup(meta, relay.OutcomeMetaKey)
	return ok && string(v) == `"unknown"`
}

// notExecutedProof reports whether result is the proxy's own answer for a
// call that provably never reached a tool (relay.NotExecutedMark, made by
// the HTTP upstream for a status such as 429), and returns it without the
// mark, as the agent, the trace and the report get it. Only the exact
// suffix the proxy writes counts: the mark holds a secret of this
// process, so an upstream cannot make its own answer count as not
// executed (RATIONALE: Streamable HTTP decisions).
func notExecutedProof(result []byte) ([]byte, bool) {
	suffix := notExecutedSuffix
	if !bytes.HasSuffix(result, suffix) || len(result) < len(suffix)+2 {
		return result, false
	}
	out := make([]byte, 0, len(result)-len(suffix)+1)
	out = append(out, result[:len(result)-len(suffix)]...)
	return append(out, '}'), true
}

// notExecutedSuffix is how the HTTP upstream's not-executed result ends
// (httpupstream's ownAnswer: both strings JSON-encoded; they are ASCII
// letters, digits, '-' and '/', which JSON writes as they are).
var notExecutedSuffix = []byte(`,"_meta":{"` + relay.OutcomeMetaKey + `":"` + relay.NotExecutedMark + `"}}`)
