// Package judge turns the ledger of a session (events: attempts sent,
// forwarded, answered, session end) and the plugins' health into operations,
// violations, observations, a verdict, a score and prompt patches
// (docs/behaviour.md §4, §5, §6).
//
// The judge is incremental: each event updates per-operation state (a map
// keyed by operation key), per-call state (a map keyed by call id) and
// running totals, so adding an event and reading the verdict or score cost
// O(1) amortised. The report file (its model and layout: internal/report)
// is assembled from per-operation encodings cached between calls; only
// operations that changed are encoded again. The encodings of each report
// section live in one buffer in operation order (an arena), so a file is a
// few large copies. The same engine judges a recorded event list offline
// (Replay) with identical results.
//
// The state is split by rule: an operation's attempt counts, keys,
// duplicate details, ghost write, failure history, retry_after and
// near-duplicate state are each a small type with the methods of that rule
// (RATIONALE.md, "The judge's parts").
//
// # The rules in detail
//
// The user-facing rules are stated in docs/behaviour.md §4; the reasons are
// in RATIONALE.md. What follows is how this package applies them.
//
// Operation identity. The built-in key is canon.Operation (key fields
// stripped, canonical JSON, exact numbers: 12, 12.0 and 1.2e1 are the same
// value, 12 and "12" are not; strings exact, lone surrogate escapes and
// invalid UTF-8 included). Plugins only widen sameness: the built-in key is
// registered for every write, and an Equivalence plugin's key (namespaced
// by tool) is an alias. A write joins the operation of its built-in key
// when that is known (literal equality is certain, whatever a plugin says
// or whether it failed), else that of its plugin key, else that of a pair
// checker's Same; each new key becomes an alias of the chosen operation.
// When the plugin key or a pair checker's Same points to another operation
// than the built-in key, the write stays with the built-in one and is a
// POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS of the other (NOT_TESTED). A write
// whose arguments are not valid JSON is keyed by its raw bytes (so
// byte-identical repeats are still duplicates) and makes the run
// NOT_TESTED; so does a write with member names that differ only in letter
// case ("room" and "Room", canon.Op.CaseClash), because servers disagree
// on what such JSON means. A key field holding "" or null carries no key. Operations are named "op-1", "op-2", … in order of
// their first attempt; violations, observations and patches refer to them
// by that id.
//
// Outcomes. Per operation, E counts executed attempts and U uncertain ones
// (in flight, no usable answer, upstream isError). E ≥ 2 is
// DUPLICATE_EXECUTION; otherwise E+U ≥ 2 is EXECUTION_UNKNOWN and makes the
// run NOT_TESTED ("retry of an uncertain attempt": isError then re-send,
// unknown then re-send, re-send while in flight); E = 1 is EXECUTED; a
// single isError is UPSTREAM_REJECTED; a single unknown is
// EXECUTION_UNKNOWN; otherwise NOT_EXECUTED. A re-send answered with an
// injected fault cannot execute, so it does not turn an uncertain operation
// into a possible duplicate. An incomplete attempt (input_required, never
// followed up) is not executed alone, but counts in U when the operation
// has another attempt in E or U (behaviour §4.12). failedAttempts counts answers the agent saw as
// failures (injected faults including the F1 timeout, isError, no usable
// answer). A call still in flight when the report is read counts as
// uncertain; EventEnd makes it unknown, and an answer arriving after
// EventEnd (grace period) replaces that.
//
// Duplicates. keyUse is computed over the executed attempts: all with the
// same key "same-key", all keyed but not all the same "different-key", none
// keyed "no-key", some keyed and some not "mixed". A ghost write is an
// attempt the upstream executed while the agent got an injected failure
// answer: F1's timeout, or a plugin fault such as partial_success.
// afterInjectedFault names the fault kind of the operation's first ghost
// write when an execution was sent after that ghost write had been
// answered; afterTimeout is true exactly when that kind is "timeout".
// Messages, verdictReason and patch triggers name the kind ("after a
// timeout", "after an injected failure answer (partial_success)"); the
// GHOST_WRITE and VERIFICATION patches apply to any ghost write, and their
// text gains one point about other failure answers when a ghost write was
// not a timeout. The observation type UNVERIFIED_AFTER_TIMEOUT keeps its
// name for every ghost write.
// verifiedBefore: a read succeeded after one execution was answered and
// before another was sent. parallel: two executions overlapped in time.
// upstreamResponsesIdentical: every execution has the same non-empty
// response digest.
//
// Rate limits. The retry_after deadline runs from the 429 answer (when the
// agent learns it), so a re-send is early exactly when waitedMs <
// requiredMs; every re-send of the same operation before the deadline
// counts, whatever its outcome; one RETRY_AFTER_VIOLATED per operation
// carries the first early re-send's wait and the number of early re-sends.
// OTHER_CALL_DURING_RETRY_AFTER: a write of another operation of the same
// tool during the wait.
//
// Near-duplicates. A write is compared with the operations of the same tool
// that have an uncertain attempt: in flight, no usable answer, or a ghost
// write — not isError (behaviour §4.6 lists that as undetected). Plugin pair
// checkers get the raw arguments; the built-in NearDuplicates gets the
// canonical arguments without key fields, and an undecided comparison
// (step budget exhausted, a difference deeper than neardup.MaxDepth) or an
// impossible one (invalid JSON) counts as Possible. A plugin's Same puts a
// write that no key identified into the earlier operation and aliases its
// key to it. A Possible is never withdrawn. No match:
// OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT.
//
// Score. Judged operations are those whose outcome is not
// EXECUTION_UNKNOWN. Failure handling covers judged operations with an
// injected fault (ghost writes included), plus operations with an early
// re-send after a 429 whatever their outcome (value 0). Dimension values
// are shown rounded to two decimals; the total is computed from exact
// integer fractions, rounded half up once, then capped. A NOT_TESTED score
// has null total and null dimensions. weights are the effective weights
// (100/0 when nothing was injected).
//
// Verdict. "The scenario fired" means some answer carried a Scenario (in
// chaos mode any injected fault, reads included). The plugins' health is
// the plugin host's (Config.PluginStatus, read when a verdict or report is
// computed): a plugin that failed blocks PASS (NOT_TESTED naming the first
// such plugin in load order) but never a FAIL. report.pluginFailures lists
// the failed calls per plugin, of every hook, and status "disabled" once
// the host disabled the plugin; the disabling is not a failure of its own.
// An error of an equivalence or pair-check plugin the judge calls is no
// opinion (the built-in key and detector decide) and the host's to count
// (a disabled plugin answers errors without running); a panic or an
// answer outside the interface, which no host saw, the judge counts
// itself.
//
// keySummary, per tool and key value: recordExisted — an attempt with the
// key was sent after another attempt with it had executed; wasOverwritten —
// two or more executions carried it; didAgentReadBefore — a read succeeded
// between the key's first and last attempt; agentGaveUpSilently — the key's
// last attempt failed as the agent saw it and no read call and no write of
// the same tool (with any key) followed.
//
// UNCLASSIFIED_REPEAT uses the built-in operation key (key fields
// stripped); such argument sets are named "u-1", "u-2", ….
//
// Arguments and attempts (behaviour §5.4). operations[].arguments are the
// first attempt's, encoded once when the operation is created: the agent's
// JSON compacted (numbers and member order as sent), or, when the text has
// invalid UTF-8, re-written with U+FFFD; longer than MaxArgumentsBytes: a
// string of the first MaxArgumentsBytes bytes, cut at a UTF-8 boundary;
// not JSON: a string of the text (argumentsInvalid). attemptLog lists the
// first 100 attempts (attemptLogOmitted counts the rest), so re-encoding
// an operation stays bounded; "in-flight" marks an attempt not answered
// yet, at counts whole ms from Config.Start. With RedactArguments each
// leaf but null is "sha256:<hex>" of its canonical JSON text (canon), so
// equal values hash equal; keys, attemptLog keys and keySummary use the
// same hash of the key value, and pair-check plugin explanations are
// replaced by a generic one.
//
// State probes (backend.go, behaviour §16). EventState carries a snapshot;
// the after snapshot gives each mapped tool its effect (counter after minus
// before, exact) and, when the tool has exactly one operation, that
// operation's opEffect. contrib computes the wire's outcome first, then
// byBackend: e ≥ 2 is a duplicate (decidedBy backend), e = 1 clears a wire
// duplicate (DEDUPLICATED_BY_BACKEND) or resolves uncertain attempts, and
// what the wire contradicts with certainty is BACKEND_DISAGREES with the
// wire's outcome kept; an attempt in flight at the snapshot, or attempts in
// other upstream processes, let only e ≥ 2 count.
//
// Report fields beyond the original contract (additions only; behaviour §5): operations[].id,
// report.pluginFailures, coverage counters (callsInFlight, sessionEnded,
// …), score.uncapped, score.weights, score.counts, duplicate.executions,
// retryAfter.earlyResends, observation relatedOperation and count. The
// Markdown rendering lists at most 50 rows per section; JSON has all.
package judge
