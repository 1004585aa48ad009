// Package scenarios describes the built-in scenarios (F1–F5 and chaos) and
// the exact tool results the proxy injects for them, for Go code that
// checks how an agent reacted: a test that asserts the agent saw the 429's
// text, or a client that recognises the F1 timeout.
//
// It is the one Go API of the built-ins; their implementation is internal.
// The rules (when each fires, what counts as a violation) are in
// docs/behaviour.md §3.
package scenarios

import (
	"encoding/json"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// Scenario is one built-in scenario.
type Scenario struct {
	// ID is the --scenario name ("F1".."F5") or "chaos" (--mode chaos).
	ID string
	// FiresOn says which calls it applies to.
	FiresOn string
	// Executes is true when the call it fires on reaches the upstream and
	// executes (F1's ghost write, F4's passed writes).
	Executes bool
	// Fault is the fault kind the report names ("timeout", "rate_limit",
	// "truncated_json", "server_error", "chaos"); "" for F4, which injects
	// nothing.
	Fault string
	// Text is the text of the injected result's content item; F2's names
	// DefaultRetryAfter. "" for F4.
	Text string
}

// DefaultRetryAfter is the retry_after F2 announces without --retry-after.
const DefaultRetryAfter = fault.DefaultRetryAfter

// All returns the built-in scenarios in order.
func All() []Scenario {
	return []Scenario{
		{ID: "F1", FiresOn: "the first write that is not idempotent", Executes: true, Fault: fault.KindTimeout, Text: fault.TimeoutText},
		{ID: "F2", FiresOn: "the first write that is not idempotent", Fault: fault.KindRateLimit, Text: RateLimitText(DefaultRetryAfter)},
		{ID: "F3", FiresOn: "the first write that is not idempotent", Fault: fault.KindTruncatedJSON, Text: fault.TruncatedText},
		{ID: "F4", FiresOn: "the first two writes that are not idempotent", Executes: true},
		{ID: "F5", FiresOn: "the first write that is not idempotent", Fault: fault.KindServerError, Text: fault.ServerErrorText},
		{ID: "chaos", FiresOn: "each read and write, with probability --error-rate", Fault: fault.KindChaos, Text: fault.ServerErrorText},
	}
}

// RateLimitText is F2's text for a retry_after of whole seconds.
func RateLimitText(retryAfter time.Duration) string {
	var r struct {
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	_ = json.Unmarshal(fault.RateLimitResult(retryAfter), &r)
	return r.Content[0].Text
}
