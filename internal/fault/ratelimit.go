package fault

import (
	"encoding/json"
	"fmt"
	"time"
)

// nameRateLimit is F2's --scenario name.
const nameRateLimit = "F2"

func init() {
	register(Builtin{
		Name: nameRateLimit, Kind: KindRateLimit, Text: RateLimitText(DefaultRetryAfter),
		FiresOn: "the first write that is not idempotent", ResendFails: true,
		Brief: Brief{"first write", "HTTP 429 with retry_after (default 60 s), nothing executed", "the same operation is re-sent before the deadline"},
		New:   newRateLimit,
	})
}

// newRateLimit is F2's constructor: opts.RetryAfter, DefaultRetryAfter
// when zero, checked.
func newRateLimit(opts Options) (Fault, error) {
	ra := opts.RetryAfter
	if ra == 0 {
		ra = DefaultRetryAfter
	}
	if ra < time.Second || ra > MaxRetryAfter || ra%time.Second != 0 {
		return nil, fmt.Errorf("creating F2: retry_after %v is not a whole number of seconds from 1 to 86400", ra)
	}
	return NewRateLimit(ra), nil
}

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
func (*RateLimit) Name() string { return nameRateLimit }

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
	return Action{Kind: Inject, Result: result, Scenario: nameRateLimit, Fault: KindRateLimit, RetryAfter: f.retryAfter}
}
