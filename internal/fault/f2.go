package fault

import (
	"encoding/json"
	"time"
)

// DefaultRetryAfter is the retry_after F2 announces unless configured.
const DefaultRetryAfter = 60 * time.Second

// MaxRetryAfter is the largest retry_after F2 accepts (one day).
const MaxRetryAfter = 86400 * time.Second

// RateLimit is F2: the first write is answered with HTTP 429 and a
// retry_after, and is not forwarded.
type RateLimit struct {
	first      firstWrite
	retryAfter time.Duration
	result     json.RawMessage // with structuredContent
	metaResult json.RawMessage // retry_after in _meta (Call.Structured false)
}

// NewRateLimit returns an armed F2 announcing retryAfter, which must be a
// whole number of seconds from 1 s to MaxRetryAfter (New checks it).
func NewRateLimit(retryAfter time.Duration) *RateLimit {
	return &RateLimit{retryAfter: retryAfter, result: RateLimitResult(retryAfter), metaResult: RateLimitMetaResult(retryAfter)}
}

// Name returns "F2".
func (*RateLimit) Name() string { return "F2" }

// Decide answers the first write with the 429; every other call passes.
// The machine-readable retry_after is in structuredContent, or in _meta
// when the call's result cannot carry structuredContent (Call.Structured).
func (f *RateLimit) Decide(c Call) Action {
	if !f.first.claim(c, false) {
		return Action{}
	}
	result := f.result
	if !c.Structured() {
		result = f.metaResult
	}
	return Action{Kind: Inject, Result: result, Scenario: "F2", Fault: KindRateLimit, RetryAfter: f.retryAfter}
}
