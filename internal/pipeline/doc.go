// Package pipeline joins the fault engine, the judge and the report file
// into the relay's per-call hook (relay.Pipeline), and answers the audit
// tools (docs/behaviour.md §3, §5, §5.7).
//
// For every tools/call the pipeline records the attempt with the judge,
// asks the fault what to do, and then either injects an answer without
// forwarding, or forwards (writing the report file first, so a kill while
// the upstream works still shows the call as in flight) and passes or
// replaces the upstream's answer. The report file is written again before
// the answer is returned to the relay, so the file always holds every call
// the upstream may have executed and every answer the agent has seen.
//
// # Notes
//
//   - Writes of the report file are serialised and coalesced: a call whose
//     events are already covered by a newer write does not write again.
//     A forwarded call writes twice (before forwarding, after its answer is
//     decided), an injected answer once. When the writer takes parts
//     (*reportfile.Writer), the judge's cached encodings go to the file
//     without being copied into one buffer.
//   - When the report file cannot be written, the pipeline prints one line
//     on stderr and, inside a call, calls Options.Fatal before the answer
//     reaches the agent; outside calls (start, session end) it returns the
//     error to the caller.
//   - Calls of unclassified tools and of tools the upstream did not list
//     never reach the fault (behaviour §3.1: no fault fires on them).
//   - An upstream result is read in one pass for its top-level isError and
//     resultType (absent, null and "" count as complete, as in the go-sdk).
//     A result with resultType "input_required" (MCP 2026-07-28
//     multi-round-trip) did not complete the call: it does not consume F1,
//     and the attempt stays open for the agent's follow-up (inputResponses,
//     the echoed requestState), whose answer is the attempt's (rounds.go,
//     behaviour §4.12); a leg never followed up ends incomplete at session
//     end. Any other resultType that is not complete is unknown.
package pipeline
