// Package relay is the proxy's JSON-RPC message-level relay between the
// agent (an MCP client on stdio) and the upstream MCP server (a child
// process on stdio). The behaviour users see is stated in docs/behaviour.md
// §2 and §13; this comment says how the package implements it.
//
// Structure: a session only wires parts with one job each — the table of
// open requests (requests.go), the tool catalog (catalog.go), the
// lifecycle events (lifecycle.go), the held-back agent writes (hold.go),
// the writers (upwriter.go, writer.go) and the transport seam (conn.go,
// transport.go) —
// to the flows of messages (agent.go, upstream.go, calls.go, startup.go).
//
// Transports: the upstream is one Upstream (Options.Upstream): a process
// on stdio (CommandUpstream), a Conn that reads and writes whole messages
// (ConnUpstream: an MCP session of Streamable HTTP, package httpupstream,
// or a SharedUpstream's session) or an in-process stream (IOUpstream). The
// agent side is the stdio pipes or a Conn (Options.Agent, package
// httpagent). The
// relay, the pipeline and the judge do not change with the transport. An
// agent Conn that implements FaultConn gets the answers the pipeline
// marked as injected faults (Response.Fault) to deliver at its own layer
// (--fault-layer http).
//
// It forwards every message as the bytes it received, except where the
// proxy deliberately changes something:
//   - tools/list results get the extra (audit) tools appended to the tools
//     array of the last page; every upstream tool object stays byte for byte;
//   - the initialize result gets "tools":{} in its capabilities when the
//     upstream has none and the proxy offers extra tools;
//   - tools/call goes through the Pipeline; when the pipeline returns the
//     upstream's own answer, the agent gets the upstream's line unchanged.
//
// Request ids: every request of the agent reaches the upstream with an id
// of the proxy's own, a counter (1, 2, …) per upstream session, spliced in
// place of the agent's id (every other byte unchanged, the message not
// copied when it is big); the answer reaches the agent with the agent's own
// id bytes. The proxy's own requests (the startup listing, re-listing after
// notifications/tools/list_changed) use string ids "agent-harness/N". An
// answer whose id is not open — a second copy of an answer, a late answer
// to a request the proxy gave up on, an invented id — is dropped with a
// warning and never judged: the agent may have reused the id meanwhile
// (allowed once its request was answered). Upstream ids are matched by
// value (wire.IDKey: an echo of 2 as 2.0 still matches); the proxy's small
// integers survive a JavaScript server's float64 parsing. The agent's
// notifications/cancelled gets the upstream's id of the request in
// requestId; one naming a request not open at the upstream is not forwarded
// (its id could be the upstream id of another request), one naming it
// ambiguously is dropped with a warning. progressToken is not an id and
// stays. Requests of the upstream to the agent, and the agent's answers,
// keep the upstream's ids: the directions are separate id spaces. Two open
// requests of the agent whose ids have the same value are refused
// ("duplicate request id"); an id is free again as soon as its answer is
// being written.
//
// A tools/call without an id (a notification) is not forwarded: it cannot
// be answered, and a lenient server would execute it unjudged. It is
// logged and reported to a Pipeline that implements DroppedCallObserver.
//
// Writes to the upstream (upWriter) never make a reader of the agent wait:
// a message is written at once as far as the pipe takes it, the rest
// queued, in order, for one writer goroutine; the queue is bounded
// (maxQueued). A call's timeout starts when it is forwarded and covers the
// write; a call still queued at its timeout is withdrawn, never sent.
//
// Ambiguous member names: an agent message whose top level has a member
// whose name differs from jsonrpc, id, method, params, result or error only
// in letter case ("ID", "Method", "\u004dethod", Unicode folding included),
// or a tools/call whose params have such a variant of name, arguments or
// _meta, is not forwarded. A server decoding with Go's encoding/json reads
// such a member as the real one (case-insensitive, last wins), a
// JavaScript or Python server ignores it: the proxy would judge another
// call than the one executed. With a usable id the agent gets a JSON-RPC
// error -32600; without one the message is dropped; both are logged.
//
// Start-up order: the upstream is started at once; the agent's initialize is
// forwarded unchanged; after the upstream's result the proxy lists all tools
// (following nextCursor) before the agent has sent notifications/initialized
// (the agent cannot send it before it has its initialize answer). The
// go-sdk and the TypeScript SDK servers accept requests after initialize;
// the proxy never sends notifications/initialized itself, the agent's own is
// forwarded. Upstream→agent messages that arrive between the upstream's
// initialize result and the proxy's answer are held back and delivered
// after it, in order. (A server that, in that window, waits for an answer
// from the agent delays the startup until the call timeout.)
//
// Protocol 2026-07-28 (SEP-2575, stateless MCP): a client such as the
// go-sdk's (v1.8.0 by default) starts with server/discover instead of
// initialize, and then sends no initialize and no notifications/initialized;
// every request carries the protocol version, client info and client
// capabilities in params._meta. The proxy treats server/discover like
// initialize: it forwards it unchanged and, when the upstream answers with a
// result, lists all tools with requests that carry the agent's own three
// _meta members (io.modelcontextprotocol/protocolVersion, /clientInfo,
// /clientCapabilities — a 2026-07-28 server refuses a request without them
// as a legacy request before initialize), prints the table, then answers
// the discover (with "tools":{} added like for initialize). When the
// result's supportedVersions does not list the agent's version, the newest
// listed version of 2026-07-28 or later is used; when it lists none, or the
// upstream answers with an error, the answer reaches the agent unchanged
// and the proxy waits for the agent's fall-back initialize. Re-listings
// carry the same _meta.
//
// Re-listing: on notifications/tools/list_changed the proxy starts to
// re-list the tools before it forwards the notification; a tools/call of a tool it
// does not know waits until that re-listing is done, so a tool the agent
// learnt of from the notification is classified, not taken for an unknown
// one.
//
// Cancellation: the agent's notifications/cancelled is forwarded
// (Options.SwallowCancel: not, for a tools/call); on MCP 2026-07-28 HTTP
// package httpagent turns a closed request stream into one. The call stays
// in the pipeline until the upstream answers (then it is judged on that
// answer: the write may have executed) or the call timeout (unknown
// outcome). The agent gets no answer for a cancelled call: neither the
// proxy's own nor the upstream's late one.
//
// Lazy listing: when the agent's first request other than initialize,
// server/discover or ping arrives before any handshake started the session
// (a stateless client may skip server/discover), the proxy lists the tools
// first, with that request's own SEP-2575 _meta, so a tools/call is never
// taken for a call of an unknown tool when the upstream lists the tool. If
// the upstream refuses that listing (a legacy server before initialize) it
// is not tried again; the agent's initialize then lists the tools.
//
// An error response the upstream sends without a usable id (absent, null
// — typically its own parse error) cannot be attributed to a request: it
// is logged ("upstream sent an error without a request id: <message>") and
// forwarded to the agent unchanged, and open requests keep waiting for
// their own answers, at most the call timeout (then: unknown outcome).
// Failing an open call instead would be a guess; a wrong one would turn a
// call that executed into one of unknown outcome.
//
// I/O: the agent's stdin (a pipe or socket) is non-blocking for the session
// and read through the Go netpoller, as are the upstream's pipes (os/exec
// makes them so). Raw non-blocking system calls instead of os.File's were
// tried and removed: they did not pay for themselves (RATIONALE.md).
//
// Concurrency: every tools/call runs on its own goroutine (the one that
// read it; reading goes on in a reused spare), so a slow call never holds
// up others; writes to each side are serialised per message. Messages the
// upstream sends before a call's answer reach the agent before it; a
// message it sends after the answer may overtake the answer, which passes
// the pipeline.
//
// End of session (agent EOF, signal): requests still open get up to
// Options.StopGrace to be answered (not a subscriptions/listen stream,
// which stays open by design), then the tasks a TaskPoller names are
// polled (tasks.go, at most Options.CallTimeout), then OnSessionEnd runs,
// then the
// upstream is stopped (stdin closed, SIGTERM, SIGKILL to its process
// group, each after StopGrace) while what it still writes is relayed; a
// message being written to the agent is always completed. The upstream's
// stderr is copied to Options.Stderr line by line, prefixed
// "[agent-harness] upstream: ", and its last 20 lines (4 KiB) are repeated
// when it exits unexpectedly.
package relay
