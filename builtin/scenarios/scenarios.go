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
	var all []Scenario
	for _, b := range fault.Builtins() {
		all = append(all, Scenario{ID: b.Name, FiresOn: b.FiresOn, Executes: b.Executes, Fault: b.Kind, Text: b.Text})
	}
	return all
}

// RateLimitText is F2's text for a retry_after of whole seconds.
func RateLimitText(retryAfter time.Duration) string { return fault.RateLimitText(retryAfter) }
