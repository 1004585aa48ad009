// Package judge turns the ledger of a session (events: attempts sent,
// forwarded, answered, session end) into operations, violations,
// observations, a verdict, a score and prompt patches (SPEC §2, §5, §6).
//
// The judge is incremental: each event updates per-operation state and
// running totals, so adding an event and reading the verdict cost O(1)
// amortised. The same engine judges a recorded event list offline.
package judge
