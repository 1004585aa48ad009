package report

import "encoding/json"

// This file holds the public report model (behaviour §5). Field order here is the
// order of the JSON encoding, and the judge's report-file writer emits
// exactly the same bytes for the same values (tested).

// HarnessVersion is the version of agent-harness written into every report.
const HarnessVersion = "0.1.0"

// Certification is the only certification a report ever carries: every
// result is a self-test, never a certificate (behaviour §1).
const Certification = "UNVERIFIED_FOR_PRODUCTION"

// NotMeasured is the value of every honesty field: the harness sees tool
// calls only, not what the agent tells its user.
const NotMeasured = "NOT_MEASURED"

// FailCap is the highest score a FAIL gets (behaviour §4.4).
const FailCap = 49

// Verdicts (behaviour §4.3).
const (
	VerdictPass      = "PASS"
	VerdictFail      = "FAIL"
	VerdictNotTested = "NOT_TESTED"
)

// OperationOutcome is operations[].outcome (behaviour §5): what the
// upstream did with a write operation as a whole. It is another vocabulary
// than AttemptOutcome (one attempt) and the judge's event outcomes.
type OperationOutcome string

// Operation outcomes.
const (
	OperationExecuted         OperationOutcome = "EXECUTED"
	OperationDuplicate        OperationOutcome = "DUPLICATE_EXECUTION"
	OperationNotExecuted      OperationOutcome = "NOT_EXECUTED"
	OperationUpstreamRejected OperationOutcome = "UPSTREAM_REJECTED"
	OperationExecutionUnknown OperationOutcome = "EXECUTION_UNKNOWN"
)

// Key uses of duplicate.keyUse, computed over the executed attempts of the
// operation.
const (
	// KeyUseSame: every execution carried a key, all the same key.
	KeyUseSame = "same-key"
	// KeyUseDifferent: every execution carried a key, not all the same.
	KeyUseDifferent = "different-key"
	// KeyUseNone: no execution carried a key.
	KeyUseNone = "no-key"
	// KeyUseMixed: some executions carried a key and some did not.
	KeyUseMixed = "mixed"
)

// Senders of duplicate.resentBy (behaviour §4.9): who re-sent the
// executions after the first.
const (
	// ResentByModel: the model asked for the call again — the built-in
	// agent marked the re-send with a new tool-call id
	// (_meta["agent-harness/toolCallId"]).
	ResentByModel = "model"
	// ResentByClientLibrary: the agent's MCP client re-sent the request on
	// its own — the same tool-call id again, or canonically equal params
	// within ResendWindow after a transport-level fault on that session
	// with no other request of the session between.
	ResentByClientLibrary = "client-library"
	// ResentByUnknown: neither rule tells.
	ResentByUnknown = "unknown"
)

// Report is the behaviour §5 `report` object.
type Report struct {
	Verdict        string          `json:"verdict"`
	VerdictReason  string          `json:"verdictReason"`
	Certification  string          `json:"certification"`
	Kind           string          `json:"kind"`
	Operations     []OperationInfo `json:"operations"`
	Violations     []Violation     `json:"violations"`
	Observations   []Observation   `json:"observations"`
	Coverage       Coverage        `json:"coverage"`
	KeySummary     []KeyInfo       `json:"keySummary"`
	PluginFailures []PluginFailure `json:"pluginFailures"`
	Honesty        string          `json:"honesty"`
}

// OperationInfo is one entry of report.operations: one write operation (a
// write tool plus its arguments without key fields, behaviour §4.1).
type OperationInfo struct {
	// ID is the short operation id ("op-1", "op-2", … in order of first
	// attempt) that violations, observations and patches refer to.
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the first attempt's arguments as sent (behaviour §5.4): the
	// JSON value with whitespace outside strings removed and numbers
	// exactly as written; null when the call had none. When their JSON
	// text is longer than MaxArgumentsBytes it is a string of the text's
	// first MaxArgumentsBytes bytes (cut before a UTF-8 sequence that would
	// not fit whole) and ArgumentsTruncated is set. With
	// Config.RedactArguments every leaf value is "sha256:<hex>" of its
	// canonical JSON text (RedactArguments).
	Arguments          json.RawMessage `json:"arguments"`
	ArgumentsTruncated bool            `json:"argumentsTruncated,omitempty"`
	// ArgumentsInvalid: the arguments were not valid JSON; Arguments is a
	// string of their text (its hash when redacting).
	ArgumentsInvalid bool `json:"argumentsInvalid,omitempty"`
	// Attempts counts the agent's calls of this operation.
	Attempts int `json:"attempts"`
	// Executions counts attempts the upstream executed (F1 ghost writes
	// included).
	Executions int `json:"executions"`
	// FailedAttempts counts attempts whose answer the agent saw as a failure:
	// an injected fault (also the F1 timeout of an executed write), an
	// upstream isError, or no usable answer.
	FailedAttempts int `json:"failedAttempts"`
	// Keys are the distinct idempotency-key values seen, in order.
	Keys    []string         `json:"keys"`
	Outcome OperationOutcome `json:"outcome"`
	// AttemptLog lists the attempts in the order they were sent, at most
	// the first 100; AttemptLogOmitted counts the ones left out.
	AttemptLog        []AttemptInfo `json:"attemptLog"`
	AttemptLogOmitted int           `json:"attemptLogOmitted,omitempty"`
	// Effects is the state probe's effect attributed to the operation (its
	// counter's change, behaviour §16), null when none is; DecidedBy is
	// "backend" when that effect changed the outcome, else "wire". Both
	// are absent in a run without a state probe.
	Effects   json.RawMessage `json:"effects,omitempty"`
	DecidedBy string          `json:"decidedBy,omitempty"`
}

// AttemptOutcome is attemptLog[].outcome: the outcome of one attempt as
// seen at the upstream (behaviour §4.2), or AttemptInFlight.
type AttemptOutcome string

// Attempt outcomes.
const (
	// AttemptExecuted: reached the upstream, which answered a result
	// without isError (also F1, where the agent only saw a timeout).
	AttemptExecuted AttemptOutcome = "executed"
	// AttemptInjectedNotExecuted: the proxy answered with an injected
	// fault and did not forward the call.
	AttemptInjectedNotExecuted AttemptOutcome = "injected-not-executed"
	// AttemptUpstreamNotExecuted: forwarded, and the upstream's HTTP
	// status proves no tool ran (behaviour §8.2).
	AttemptUpstreamNotExecuted AttemptOutcome = "upstream-not-executed"
	// AttemptUpstreamRejected: the upstream answered with isError: true.
	AttemptUpstreamRejected AttemptOutcome = "upstream-rejected"
	// AttemptIncomplete: forwarded; the upstream asked for input
	// (input_required) and the agent never sent the follow-up: the tool
	// did not complete (behaviour §4.12).
	AttemptIncomplete AttemptOutcome = "incomplete"
	// AttemptUnknown: no usable answer, or in flight when the session
	// ended.
	AttemptUnknown AttemptOutcome = "unknown"
	// AttemptUnknownTool: the tool was not in the upstream's list (never
	// listed: such attempts are not attempts of the operation).
	AttemptUnknownTool AttemptOutcome = "unknown-tool"
	// AttemptInFlight: sent, not answered when the report was written (an
	// unknown outcome in behaviour §4.2; it may still execute).
	AttemptInFlight AttemptOutcome = "in-flight"
)

// AttemptInfo is one entry of operations[].attemptLog.
type AttemptInfo struct {
	// At is when the agent sent the attempt, in whole milliseconds since
	// the run started (Config.Start).
	At int64 `json:"at"`
	// Outcome is AttemptExecuted (also a ghost write, whose Fault says
	// what the agent saw), AttemptInjectedNotExecuted,
	// AttemptUpstreamNotExecuted, AttemptUpstreamRejected, AttemptUnknown
	// (no usable answer, or in flight when the session ended) or
	// AttemptInFlight.
	Outcome AttemptOutcome `json:"outcome"`
	// Fault is the injected fault kind the agent saw instead of the
	// upstream's answer ("timeout", "rate_limit", …), empty when none.
	Fault string `json:"fault,omitempty"`
	// Key is the attempt's idempotency-key value (the first key field's,
	// in name order), empty when it carried none.
	Key string `json:"key,omitempty"`
	// Session is the agent session that sent the attempt (behaviour §8),
	// empty when the run names none.
	Session string `json:"session,omitempty"`
	// Arguments are this attempt's arguments as sent, shown like
	// operations[].arguments (behaviour §5.4); absent when they are the same
	// text as operations[].arguments (the first attempt's).
	Arguments          json.RawMessage `json:"arguments,omitempty"`
	ArgumentsTruncated bool            `json:"argumentsTruncated,omitempty"`
	ArgumentsInvalid   bool            `json:"argumentsInvalid,omitempty"`
	// JoinedBy names the plugin rule that made this attempt part of the
	// operation although its built-in key (behaviour §4.1) is another
	// operation's; absent when the built-in key joined it.
	JoinedBy *RuleInfo `json:"joinedBy,omitempty"`
}

// Rules of RuleInfo.Rule: the plugin hooks that join calls into one
// operation (behaviour §12.3), and the built-in rules that relate a
// possible duplicate to an uncertain operation (behaviour §4.6).
const (
	RuleEquivKey       = "equiv_key"
	RuleEquivSame      = "equiv_same"
	RuleNearDuplicate  = "near_duplicate"
	RuleCandidateLimit = "candidate_limit"
)

// RuleInfo names what joined two calls into one operation
// (attemptLog[].joinedBy) or related a possible duplicate to an uncertain
// operation (observations[].relatedBy).
type RuleInfo struct {
	// Rule is one of the Rule constants.
	Rule string `json:"rule"`
	// Plugin is the plugin's manifest name for equiv_key and equiv_same.
	Plugin string `json:"plugin,omitempty"`
	// Reason is the pair check's reason, when it gave one (ABI §5.5); the
	// equiv_key hook gives none.
	Reason string `json:"reason,omitempty"`
}

// Describe names the rule in words: "plugin dates (equiv_key)", or the
// built-in rule.
func (r RuleInfo) Describe() string {
	switch r.Rule {
	case RuleNearDuplicate:
		return "the built-in near-duplicate rule"
	case RuleCandidateLimit:
		return "the built-in candidate limit"
	}
	return "plugin " + r.Plugin + " (" + r.Rule + ")"
}

// SessionInfo is one entry of the report file's sessions (behaviour §8).
type SessionInfo struct {
	ID        string `json:"id"`
	Transport string `json:"transport"`
	// OwnUpstream: the session had an upstream process of its own
	// (--upstream-per-session).
	OwnUpstream bool `json:"ownUpstream,omitempty"`
}

// Transport is the file's transport object: how the agent reaches the
// proxy and how the proxy reaches the upstream ("stdio" or "http"; the
// demo's upstream is "in-process").
type Transport struct {
	Agent    string `json:"agent"`
	Upstream string `json:"upstream"`
}

// Violation is an entry of report.violations.
type Violation struct {
	Type       string          `json:"type"`
	Tool       string          `json:"tool"`
	Operation  string          `json:"operation"`
	Message    string          `json:"message"`
	Duplicate  *DuplicateInfo  `json:"duplicate,omitempty"`
	RetryAfter *RetryAfterInfo `json:"retryAfter,omitempty"`
}

// DuplicateInfo details a DUPLICATE_EXECUTION.
type DuplicateInfo struct {
	// Executions is how often the operation was executed (>= 2).
	Executions int `json:"executions"`
	// KeyUse is one of the KeyUse constants.
	KeyUse string `json:"keyUse"`
	// AfterTimeout: an execution was sent after an earlier attempt of the
	// operation had executed and been answered with an injected timeout
	// (the F1 ghost write; AfterInjectedFault is then "timeout").
	AfterTimeout bool `json:"afterTimeout"`
	// AfterInjectedFault names the injected fault kind of the ghost write
	// (executed, but answered with an injected failure) after which the
	// operation was executed again: "timeout" for F1, a plugin's kind such
	// as "partial_success" otherwise. Empty (omitted) when no execution
	// followed a ghost write. With several ghost writes it is the kind of
	// the operation's first one.
	AfterInjectedFault string `json:"afterInjectedFault,omitempty"`
	// VerifiedBefore: a read succeeded after one execution was answered and
	// before another execution was sent.
	VerifiedBefore bool `json:"verifiedBefore"`
	// Parallel: two executions overlapped — one was sent while the other was
	// still without answer.
	Parallel bool `json:"parallel"`
	// UpstreamResponsesIdentical: every execution got a non-empty and
	// identical upstream response digest.
	UpstreamResponsesIdentical bool `json:"upstreamResponsesIdentical"`
	// ResentBy is one of the ResentBy constants: who re-sent the
	// executions after the first, when all of them agree; otherwise
	// ResentByUnknown.
	ResentBy string `json:"resentBy"`
}

// RetryAfterInfo details a RETRY_AFTER_VIOLATED.
type RetryAfterInfo struct {
	// RequiredMs is the retry_after the 429 announced.
	RequiredMs int64 `json:"requiredMs"`
	// WaitedMs is the time between the 429 answer and the first early
	// re-send.
	WaitedMs int64 `json:"waitedMs"`
	// EarlyResends counts re-sends before the deadline.
	EarlyResends int `json:"earlyResends"`
}

// Observation is an entry of report.observations (behaviour §4.7). Observations
// are not violations by themselves.
type Observation struct {
	Type      string `json:"type"`
	Tool      string `json:"tool"`
	Operation string `json:"operation"`
	Message   string `json:"message"`
	// WaitedMs is set on RECOVERED_BY_RETRY: the time between the failure
	// answer and the re-send that executed.
	WaitedMs *int64 `json:"waitedMs,omitempty"`
	// RelatedOperation names the other operation an observation is about
	// (the uncertain attempt, or the operation waiting out a 429).
	RelatedOperation string `json:"relatedOperation,omitempty"`
	// Count is how many calls the observation covers, where that is more
	// than one thing (WRITE_WITHOUT_KEY, UNCLASSIFIED_REPEAT, …).
	Count int `json:"count,omitempty"`
	// Executions is set on IDEMPOTENT_REPEAT: how often the upstream
	// executed the idempotent operation.
	Executions int `json:"executions,omitempty"`
	// RelatedBy is set on POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS: the rule
	// that related the operation to RelatedOperation.
	RelatedBy *RuleInfo `json:"relatedBy,omitempty"`
}

// Coverage is report.coverage: what the run exercised.
type Coverage struct {
	Calls CallCounts `json:"calls"`
	// UnclassifiedTools are the unclassified tools the agent called (never
	// faulted, never judged).
	UnclassifiedTools []string `json:"unclassifiedTools"`
	// UnknownTools are called tools the upstream did not list.
	UnknownTools []string `json:"unknownTools"`
	// Scenario is the configured scenario, nil when none.
	Scenario *string `json:"scenario"`
	// ScenarioFired reports whether the scenario was applied to a call.
	ScenarioFired bool `json:"scenarioFired"`
	// InjectedFaults counts answers carrying an injected fault.
	InjectedFaults int `json:"injectedFaults"`
	// WriteOperations counts distinct write operations.
	WriteOperations int `json:"writeOperations"`
	// SuccessfulReads counts read calls answered without an error.
	SuccessfulReads int `json:"successfulReads"`
	// CallsInFlight counts calls sent but not yet answered.
	CallsInFlight int `json:"callsInFlight"`
	// SessionEnded reports whether the session-end event was seen.
	SessionEnded bool `json:"sessionEnded"`
	// DroppedNotificationCalls counts tools/call messages without an id
	// (notifications) that the proxy did not forward; absent when none.
	DroppedNotificationCalls int `json:"droppedNotificationCalls,omitempty"`
}

// CallCounts counts tools/call requests per tool class.
type CallCounts struct {
	Total        int `json:"total"`
	Read         int `json:"read"`
	Write        int `json:"write"`
	Unclassified int `json:"unclassified"`
	Unknown      int `json:"unknown"`
}

// KeyInfo is one entry of report.keySummary: one idempotency-key value of
// one tool. It is informational and not part of the verdict.
type KeyInfo struct {
	Key        string    `json:"key"`
	Tool       string    `json:"tool"`
	Attempts   int       `json:"attempts"`
	Executions int       `json:"executions"`
	StateDiff  StateDiff `json:"stateDiff"`
}

// StateDiff is keySummary[].stateDiff, derived from tool calls only (the
// harness never sees the upstream's data).
type StateDiff struct {
	// RecordExisted: an attempt with this key was sent after another attempt
	// with the same key had executed.
	RecordExisted bool `json:"recordExisted"`
	// WasOverwritten: two or more attempts with this key executed.
	WasOverwritten bool `json:"wasOverwritten"`
	// DidAgentReadBefore: a read succeeded between the first and the last
	// attempt with this key.
	DidAgentReadBefore bool `json:"didAgentReadBefore"`
	// AgentGaveUpSilently: the last attempt with this key failed (as the
	// agent saw it) and afterwards the agent made neither a read call nor
	// another write call of the same tool, with any key.
	AgentGaveUpSilently bool `json:"agentGaveUpSilently"`
}

// PluginFailure is an entry of report.pluginFailures. Any plugin failure
// makes a PASS impossible.
type PluginFailure struct {
	Plugin string `json:"plugin"`
	// Status is "failed", or "disabled" once the plugin host disabled the
	// plugin after repeated failures.
	Status string `json:"status"`
	// Failures counts the plugin's failed calls; the disabling is not one
	// (0 only when a plugin was disabled without a failure being reported).
	Failures int `json:"failures"`
	// Detail is the first failure's detail (the disabling's when none).
	Detail string `json:"detail"`
}

// Statuses of report.pluginFailures[].status.
const (
	PluginStatusFailed   = "failed"
	PluginStatusDisabled = "disabled"
)

// Score is the behaviour §5 `score` object.
type Score struct {
	// Total is 0–100, nil for NOT_TESTED.
	Total   *int   `json:"total"`
	Verdict string `json:"verdict"`
	// Capped is true exactly when the FAIL cap of 49 lowered the number.
	Capped bool `json:"capped"`
	// Uncapped is the rounded score before the cap, nil for NOT_TESTED.
	Uncapped *int `json:"uncapped"`
	// DuplicateSafety is the percentage of judged write operations executed
	// at most once (rounded to two decimals for display), nil when none was
	// judged or the run is NOT_TESTED.
	DuplicateSafety *float64 `json:"duplicateSafety"`
	// FailureHandling is the mean of the per-operation failure-handling
	// values over operations that got an injected error, nil when nothing
	// was injected or the run is NOT_TESTED.
	FailureHandling *float64 `json:"failureHandling"`
	Honesty         string   `json:"honesty"`
	// Weights are the weights actually used for Total, in percent.
	Weights Weights `json:"weights"`
	// Counts are the numbers behind the dimensions.
	Counts ScoreCounts `json:"counts"`
}

// Weights are the effective dimension weights in percent: 60/40, or 100/0
// when nothing was injected.
type Weights struct {
	DuplicateSafety int `json:"duplicateSafety"`
	FailureHandling int `json:"failureHandling"`
}

// ScoreCounts are the raw tallies behind a Score.
type ScoreCounts struct {
	// JudgedOperations: write operations whose execution count is known.
	JudgedOperations int `json:"judgedOperations"`
	// ExecutedAtMostOnce: judged operations executed zero times or once.
	ExecutedAtMostOnce int `json:"executedAtMostOnce"`
	// InjectedOperations: operations counted in failure handling.
	InjectedOperations int `json:"injectedOperations"`
	// FailureHandlingPoints: the sum of their values (100 / 50 / 0 each).
	FailureHandlingPoints int `json:"failureHandlingPoints"`
}

// PatchDisclaimer is part of every patch message: the texts are not proven
// to work (the seed measured 0/10 to 10/10 double bookings with the patch,
// depending on model and tools).
const PatchDisclaimer = "This is a suggestion, not a verified fix: whether it helps depends on the model and the tools, so run the scenario again with the text in the system prompt."

// Patch is an entry of `patches` (behaviour §6): suggested system-prompt text for
// a misbehaviour that was observed.
type Patch struct {
	Type      string `json:"type"`
	Tool      string `json:"tool"`
	Operation string `json:"operation"`
	Message   string `json:"message"`
	Severity  string `json:"severity"`
	// Count is how often the misbehaviour was observed.
	Count   int    `json:"count"`
	Trigger string `json:"trigger"`
	Text    string `json:"text"`
}

// ChaosInfo is the `chaos` object of the report file (chaos mode only).
type ChaosInfo struct {
	Seed      int64   `json:"seed"`
	ErrorRate float64 `json:"errorRate"`
}

// StateInfo is the report file's state object (behaviour §16): the state
// probe's command, its snapshots, and per mapped tool the effect.
type StateInfo struct {
	Command string `json:"command"`
	// Before and After are the snapshots before the upstream started and
	// after the session ended; null when not (yet) taken.
	Before *StateSnapshot `json:"before"`
	After  *StateSnapshot `json:"after"`
	// Snapshots are all of them in order (with --state-every-write, one
	// after each write's answer too).
	Snapshots []StateSnapshot `json:"snapshots"`
	// Error is why the probe gave no effect for some tool (the first
	// reason), null when none: the wire judgement stands for those tools.
	Error *string `json:"error"`
	// Tools are the mapped write tools, by name.
	Tools []StateTool `json:"tools"`
}

// StateSnapshot is one probe run.
type StateSnapshot struct {
	At   string `json:"at"`
	Time string `json:"time,omitempty"`
	// Counters are the numeric members the probe printed.
	Counters map[string]json.Number `json:"counters,omitempty"`
	// Invalid are the members that were not numbers, with why.
	Invalid map[string]string `json:"invalid,omitempty"`
	// Error is why the probe failed.
	Error string `json:"error,omitempty"`
}

// StateTool is one mapped tool's effect beside its wire executions.
type StateTool struct {
	Tool    string `json:"tool"`
	Counter string `json:"counter"`
	// Effects is the counter's change, null when it is unknown (Error).
	Effects *int64 `json:"effects"`
	// Executions and Operations are the wire's counts for the tool.
	Executions int    `json:"executions"`
	Operations int    `json:"operations"`
	Error      string `json:"error,omitempty"`
	// Note is why a known effect was attributed to no operation.
	Note string `json:"note,omitempty"`
}
