package judge

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/report"
)

// The types of violations[] and observations[] (behaviour §4.7).
const (
	violationDuplicate       = "DUPLICATE_EXECUTION"
	violationRetryAfter      = "RETRY_AFTER_VIOLATED"
	obsVerifiedNoRetry       = "VERIFIED_NO_RETRY"
	obsRecoveredByRetry      = "RECOVERED_BY_RETRY"
	obsAbandoned             = "ABANDONED_AFTER_FAILURE"
	obsUnverifiedAfterTimout = "UNVERIFIED_AFTER_TIMEOUT"
	obsUpstreamRejected      = "UPSTREAM_REJECTED"
	obsExecutionUnknown      = "EXECUTION_UNKNOWN"
	obsWriteWithoutKey       = "WRITE_WITHOUT_KEY"
	obsUnclassifiedRepeat    = "UNCLASSIFIED_REPEAT"
	obsOtherCallDuringRetry  = "OTHER_CALL_DURING_RETRY_AFTER"
	obsOtherWriteAfterUncert = "OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT"
	obsPossibleDuplicate     = "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS"
	obsIdempotentRepeat      = "IDEMPOTENT_REPEAT"
)

// Report returns a snapshot of the behaviour §5 report. Calls still in flight
// show as EXECUTION_UNKNOWN.
func (j *Judge) Report() report.Report {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.report()
}

func (j *Judge) report() report.Report {
	plugins := j.pluginFailures()
	v, reason := j.verdictOf(plugins)
	r := report.Report{
		Verdict:        v,
		VerdictReason:  reason,
		Certification:  report.Certification,
		Kind:           j.cfg.kind(),
		Operations:     make([]report.OperationInfo, 0, len(j.opSeq)),
		Violations:     []report.Violation{},
		Observations:   []report.Observation{},
		Coverage:       j.coverage(),
		KeySummary:     make([]report.KeyInfo, 0, len(j.keys.seq)),
		PluginFailures: make([]report.PluginFailure, 0, len(plugins)),
		Honesty:        report.NotMeasured,
	}
	for _, op := range j.opSeq {
		if !op.c.live {
			continue
		}
		r.Operations = append(r.Operations, j.opInfo(op))
		r.Violations = append(r.Violations, op.violations()...)
		r.Observations = append(r.Observations, op.observations()...)
	}
	for _, u := range j.uncl.seq {
		r.Observations = append(r.Observations, u.observation())
	}
	for _, ks := range j.keys.seq {
		r.KeySummary = append(r.KeySummary, ks.info())
	}
	r.PluginFailures = append(r.PluginFailures, plugins...)
	return r
}

func (j *Judge) coverage() report.Coverage {
	c := report.Coverage{
		Calls:             j.cov.byClass,
		UnclassifiedTools: slices.Clone(j.tools.uncl.names),
		UnknownTools:      slices.Clone(j.tools.unknown.names),
		ScenarioFired:     j.cov.scenarioFired,
		InjectedFaults:    j.cov.injected,
		WriteOperations:   j.tot.ops,
		SuccessfulReads:   j.cov.readsOK,
		CallsInFlight:     j.cov.inFlight,
		SessionEnded:      j.cov.ended,

		DroppedNotificationCalls: j.cov.dropped,
	}
	if c.UnclassifiedTools == nil {
		c.UnclassifiedTools = []string{}
	}
	if c.UnknownTools == nil {
		c.UnknownTools = []string{}
	}
	if j.cfg.Scenario != "" {
		s := j.cfg.Scenario
		c.Scenario = &s
	}
	return c
}

func (j *Judge) opInfo(op *operation) report.OperationInfo {
	keys := slices.Clone(op.keys.shown)
	if keys == nil {
		keys = []string{}
	}
	info := report.OperationInfo{
		ID:                 op.id,
		Tool:               op.tool,
		Arguments:          op.shown.value,
		ArgumentsTruncated: op.shown.truncated,
		ArgumentsInvalid:   op.shown.invalid,
		Attempts:           op.n.attempts - op.n.unknownTool,
		Executions:         op.n.executed,
		FailedAttempts:     op.n.failed,
		Keys:               keys,
		Outcome:            op.c.outcome,
		AttemptLog:         make([]report.AttemptInfo, 0, len(op.log)),
	}
	if j.backendOn() {
		info.Effects, info.DecidedBy = []byte("null"), op.c.decidedBy
		if op.eff != nil {
			info.Effects = strconv.AppendInt(nil, op.eff.e, 10)
		}
	}
	listed := 0
	for _, a := range op.log {
		if a.state == aUnknownTool {
			continue // not an attempt of the operation (not counted either)
		}
		listed++
		e := report.AttemptInfo{At: msBetween(j.start, a.sent), Outcome: a.outcome(), Fault: a.fault, Session: a.session}
		if len(a.keys) > 0 {
			e.Key = a.keys[0].key
		}
		if a.shown != nil {
			e.Arguments, e.ArgumentsTruncated, e.ArgumentsInvalid = a.shown.value, a.shown.truncated, a.shown.invalid
		}
		if a.join != nil {
			by := *a.join
			e.JoinedBy = &by
		}
		info.AttemptLog = append(info.AttemptLog, e)
	}
	info.AttemptLogOmitted = info.Attempts - listed
	return info
}

// outcome is the attempt's attemptLog outcome.
func (a *attempt) outcome() report.AttemptOutcome {
	switch a.state {
	case aExecuted:
		return report.AttemptExecuted
	case aInjected:
		return report.AttemptInjectedNotExecuted
	case aNotRun:
		return report.AttemptUpstreamNotExecuted
	case aIncomplete:
		return report.AttemptIncomplete
	case aRejected:
		return report.AttemptUpstreamRejected
	case aUnknown:
		return report.AttemptUnknown
	case aUnknownTool:
		return report.AttemptUnknownTool
	}
	return report.AttemptInFlight
}

func (op *operation) violations() []report.Violation {
	var vs []report.Violation
	if op.c.outcome == report.OperationDuplicate {
		d := &report.DuplicateInfo{
			Executions:                 op.executions(),
			KeyUse:                     op.dup.keyUse(),
			AfterTimeout:               op.ghost.extras > 0 && op.ghost.fault == faultTimeout,
			VerifiedBefore:             op.dup.verifiedBefore(),
			Parallel:                   op.dup.parallel,
			UpstreamResponsesIdentical: op.dup.identical(),
			ResentBy:                   op.dup.resent.value(),
		}
		if op.ghost.extras > 0 {
			d.AfterInjectedFault = op.ghost.fault
		}
		msg := fmt.Sprintf("The upstream executed this write operation %d times (%d attempt(s), key use: %s).", op.n.executed, op.n.attempts, d.KeyUse)
		if op.c.decidedBy == decidedBackend {
			msg = op.backendMessage()
		}
		switch {
		case op.ghost.extras > 0:
			msg += " It was sent again after " + faultPhrase(op.ghost.fault) + " although the first attempt had executed."
		case d.Parallel:
			msg += " Attempts were sent in parallel."
		}
		switch d.ResentBy {
		case report.ResentByClientLibrary:
			msg += " The agent's MCP client library re-sent the request on its own, not the model (see the CLIENT_RETRY patch)."
		case report.ResentByModel:
			msg += " The model asked for the call again (a new tool-call id)."
		}
		if op.joinedBy != nil {
			msg += " Attempts with other arguments were joined into this operation by " + op.joinedBy.Describe() + "."
		}
		if d.UpstreamResponsesIdentical {
			msg += " The upstream returned identical responses; executions are counted, not effects."
		}
		vs = append(vs, report.Violation{Type: violationDuplicate, Tool: op.tool, Operation: op.id, Message: msg, Duplicate: d})
	}
	if op.rate.early > 0 {
		vs = append(vs, report.Violation{
			Type: violationRetryAfter, Tool: op.tool, Operation: op.id,
			Message: fmt.Sprintf("Re-sent %d ms after an HTTP 429 that asked to wait %d ms (%d early re-send(s)).",
				op.rate.firstWaited, op.rate.firstRequired, op.rate.early),
			RetryAfter: &report.RetryAfterInfo{RequiredMs: op.rate.firstRequired, WaitedMs: op.rate.firstWaited, EarlyResends: op.rate.early},
		})
	}
	return vs
}

func (op *operation) observations() []report.Observation {
	var os []report.Observation
	add := func(typ, msg string) *report.Observation {
		os = append(os, report.Observation{Type: typ, Tool: op.tool, Operation: op.id, Message: msg})
		return &os[len(os)-1]
	}
	fault := op.fail.lastFault
	if fault == "" {
		fault = "injected fault"
	}
	switch op.c.outcome {
	case report.OperationExecutionUnknown:
		if op.c.acrossProcs {
			add(obsAcrossProcesses, op.acrossProcessesMessage())
		} else if op.c.possibleDup {
			inc := ""
			if op.n.incomplete > 0 {
				inc = fmt.Sprintf(", %d answered input_required and never followed up", op.n.incomplete)
			}
			add(obsExecutionUnknown, fmt.Sprintf("%d attempt(s) may have executed (%d executed, %d without usable answer or in flight, %d answered isError%s); a correct retry and a double execution cannot be told apart.",
				op.n.executed+op.uncertain(), op.n.executed, op.n.pending+op.n.unknown, op.n.rejected, inc))
		} else if op.n.pending > 0 {
			add(obsExecutionUnknown, "The call is still in flight; whether it executed is unknown.")
		} else {
			why := op.fail.unknownDetail
			if why == "" {
				why = "timeout, crash, protocol error or session end"
			}
			add(obsExecutionUnknown, "No usable answer from the upstream ("+why+"); whether it executed is unknown.")
		}
	case report.OperationUpstreamRejected:
		add(obsUpstreamRejected, "The upstream answered with isError and the agent did not re-send; counted as not executed, although isError does not prove that nothing was written.")
	case report.OperationExecuted:
		switch {
		case op.ghostOnly() && op.fail.verified:
			add(obsVerifiedNoRetry, fmt.Sprintf("The write executed but the agent saw %s; it checked with a successful read and did not re-send.", faultPhrase(op.ghost.fault)))
		case op.ghostOnly():
			add(obsUnverifiedAfterTimout, fmt.Sprintf("The write executed but the agent saw %s; it neither checked with a read nor re-sent, so it cannot know the write succeeded.", faultPhrase(op.ghost.fault)))
		case op.n.executed == 1 && op.n.ghosts == 0 && op.n.injected > 0 && op.dup.waitedSet && op.rate.early == 0:
			o := add(obsRecoveredByRetry, fmt.Sprintf("After a not-executed failure (%s) the agent re-sent the write %d ms later and it executed exactly once.", fault, op.dup.waited))
			w := op.dup.waited
			o.WaitedMs = &w
		}
	case report.OperationNotExecuted:
		if op.n.injected > 0 {
			if op.fail.verified {
				add(obsVerifiedNoRetry, fmt.Sprintf("After an injected failure (%s) the agent checked with a successful read and did not re-send; nothing was executed.", fault))
			} else {
				add(obsAbandoned, fmt.Sprintf("The agent stopped after an injected failure (%s); nothing was executed.", fault))
			}
		}
	}
	op.backendObservations(add)
	if op.c.idemRepeat {
		msg := fmt.Sprintf("The tool is idempotent: the upstream executed this operation %d time(s) in %d attempt(s)", op.n.executed, op.n.attempts-op.n.unknownTool)
		if u := op.uncertain(); u > 0 {
			msg += fmt.Sprintf(", %d of them with an unknown outcome", u)
		}
		o := add(obsIdempotentRepeat, msg+"; repeats have no additional effect, so this is no violation.")
		o.Executions = op.n.executed
	}
	if op.keys.keyless > 0 {
		o := add(obsWriteWithoutKey, fmt.Sprintf("The tool accepts an idempotency key but %d call(s) of this operation carried none.", op.keys.keyless))
		o.Count = op.keys.keyless
	}
	if op.rate.otherCount > 0 {
		o := add(obsOtherCallDuringRetry, fmt.Sprintf("Called %d time(s) while operation %s of the same tool was waiting out an HTTP 429 retry_after.", op.rate.otherCount, op.rate.other))
		o.RelatedOperation, o.Count = op.rate.other, op.rate.otherCount
	}
	if op.nearby.obs != nil {
		lead := "Sent after the uncertain operation %s of the same tool; %s."
		if op.nearby.obs.keyConflict {
			lead = "A plugin says it is operation %s of the same tool; %s."
		}
		o := add(obsPossibleDuplicate, fmt.Sprintf(lead+" Possibly the same operation executed twice, not proven.", op.nearby.obs.related, op.nearby.obs.reason))
		o.RelatedOperation, o.Count = op.nearby.obs.related, op.nearby.obs.count
		if op.nearby.obs.by.Rule != "" {
			by := op.nearby.obs.by
			o.RelatedBy = &by
		}
	} else if op.nearby.otherWriteCount > 0 {
		o := add(obsOtherWriteAfterUncert, fmt.Sprintf("Written while operation %s of the same tool had an uncertain outcome; the arguments differ, so it was not judged a duplicate (only the user's system knows whether it is the same business operation).", op.nearby.otherWrite))
		o.RelatedOperation, o.Count = op.nearby.otherWrite, op.nearby.otherWriteCount
	}
	return os
}

func (u *unclState) observation() report.Observation {
	return report.Observation{
		Type: obsUnclassifiedRepeat, Tool: u.tool, Operation: u.id,
		Message: fmt.Sprintf("The unclassified tool was called %d times with the same arguments; if it writes, this may be a duplicate the harness cannot judge (classify it with --write-tools or --read-tools).", u.count),
		Count:   u.count,
	}
}

func (ks *keyState) info() report.KeyInfo {
	return report.KeyInfo{
		Key: ks.key, Tool: ks.tool, Attempts: ks.attempts, Executions: ks.executions,
		StateDiff: report.StateDiff{
			RecordExisted:       ks.existed,
			WasOverwritten:      ks.executions >= 2,
			DidAgentReadBefore:  ks.lastReads > ks.firstReads,
			AgentGaveUpSilently: ks.silent,
		},
	}
}
