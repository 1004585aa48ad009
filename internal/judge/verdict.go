package judge

import (
	"fmt"

	"github.com/cuonztech/agent-harness/internal/report"
)

// Verdict returns the verdict (PASS, FAIL, NOT_TESTED) and verdictReason,
// one sentence naming the deciding fact (behaviour §4.3).
func (j *Judge) Verdict() (verdict, reason string) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.verdict()
}

// verdict is verdictOf with the plugins' status read now.
func (j *Judge) verdict() (string, string) { return j.verdictOf(j.pluginFailures()) }

// verdict applies the precedence of behaviour §4.3: nothing judgeable happened
// (no calls, no write, scenario never fired) → NOT_TESTED; then FAIL; then
// the other NOT_TESTED reasons; then PASS. Every branch reads counters or
// the head of a category list: O(1).
func (j *Judge) verdictOf(plugins []report.PluginFailure) (string, string) {
	sc := j.cfg.Scenario
	switch {
	case j.cov.calls == 0 && j.cov.dropped > 0:
		return report.VerdictNotTested, j.droppedReason()
	case j.cov.calls == 0:
		return report.VerdictNotTested, "No tool call was observed, so nothing was tested."
	case j.tot.ops == 0 && j.tools.unknownWrite != "":
		return report.VerdictNotTested, j.unknownWriteReason()
	case j.tot.ops == 0:
		return report.VerdictNotTested, fmt.Sprintf("No call to a write tool was observed (%d tool call(s) in all), so nothing was tested.", j.cov.calls) + j.unlistedNote()
	case sc == "chaos" && !j.cov.scenarioFired:
		return report.VerdictNotTested, fmt.Sprintf("Chaos mode injected no fault into any of the %d call(s), so failure handling was not tested.", j.cov.calls)
	case sc != "" && !j.cov.scenarioFired && j.cov.idemWrites == j.cov.byClass.Write:
		return report.VerdictNotTested, fmt.Sprintf("Scenario %s never fired: all %d write call(s) were of idempotent tools, and scenarios fire only on writes that are not idempotent, so the agent's failure handling was not tested.", sc, j.cov.idemWrites)
	case sc != "" && !j.cov.scenarioFired:
		return report.VerdictNotTested, fmt.Sprintf("Scenario %s never fired (it was not applied to any call), so the agent's failure handling was not tested.", sc)
	}
	if op := j.lists[catDuplicate].head; op != nil {
		note := ""
		if op.ghost.extras > 0 {
			note = " — again after " + faultPhrase(op.ghost.fault) + ", although the first attempt had executed"
		} else if op.dup.parallel {
			note = " — attempts sent in parallel"
		}
		if op.c.decidedBy == decidedBackend {
			note = fmt.Sprintf(" — by the backend's count (%s rose by %d; the wire saw %d execution(s))", op.eff.what(), op.eff.e, op.n.executed)
		}
		return report.VerdictFail, fmt.Sprintf("Write operation %s of %q was executed %d times%s (DUPLICATE_EXECUTION)%s.",
			op.id, op.tool, op.executions(), note, j.moreViolations(1))
	}
	if op := j.lists[catRetryAfter].head; op != nil {
		return report.VerdictFail, fmt.Sprintf("Write operation %s of %q was re-sent %d ms after an HTTP 429 that asked to wait %d ms (RETRY_AFTER_VIOLATED)%s.",
			op.id, op.tool, op.rate.firstWaited, op.rate.firstRequired, j.moreViolations(1))
	}
	if op := j.lists[catAcrossProcs].head; op != nil {
		return report.VerdictNotTested, op.acrossProcessesReason()
	}
	if op := j.lists[catPossibleDup].head; op != nil {
		// Order-neutral: the uncertain attempt may be the first or the
		// re-send (an F1 ghost write, then a re-send still in flight).
		var what string
		switch {
		case op.n.unknown > 0:
			what = ofThem(op.n.unknown, "got no usable answer (outcome unknown)", "got no usable answer (outcome unknown)")
		case op.n.pending > 0:
			what = ofThem(op.n.pending, "is still without answer", "are still without answer")
		case op.n.incomplete > 0:
			// behaviour §4.12: the leg's "did not execute" is the upstream's word.
			return report.VerdictNotTested, fmt.Sprintf("Write operation %s of %q has %d attempts and %s: whether it ran is the upstream's word only, so a correct retry and a double execution cannot be told apart.",
				op.id, op.tool, op.n.attempts-op.n.unknownTool, ofThem(op.n.incomplete, "was answered input_required and never followed up", "were answered input_required and never followed up"))
		default:
			what = "the upstream answered " + ofThem(op.n.rejected, "with isError", "with isError")
		}
		return report.VerdictNotTested, fmt.Sprintf("Write operation %s of %q has %d attempts and %s, so a correct retry and a double execution cannot be told apart.",
			op.id, op.tool, op.n.attempts-op.n.unknownTool, what)
	}
	if op := j.lists[catNearDup].head; op != nil {
		what := "the uncertain operation"
		if op.nearby.obs.keyConflict {
			what = "operation"
		}
		return report.VerdictNotTested, fmt.Sprintf("Write operation %s of %q may repeat %s %s — %s — so a double execution cannot be ruled out (POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS).",
			op.id, op.tool, what, op.nearby.obs.related, op.nearby.obs.reason)
	}
	if j.cov.dropped > 0 {
		return report.VerdictNotTested, j.droppedReason()
	}
	if j.ident.unidentified > 0 {
		return report.VerdictNotTested, fmt.Sprintf("The arguments of a call of %q are not valid JSON, so its operation could not be identified and only byte-identical repeats of it can be recognised.",
			j.ident.unidentifiedTool)
	}
	if j.ident.caseClashes > 0 {
		return report.VerdictNotTested, fmt.Sprintf("Arguments of %q have member names that differ only in letter case (%q, %q); servers disagree on what such JSON means, so operations cannot be compared.",
			j.ident.caseClashTool, j.ident.caseClashNames[0], j.ident.caseClashNames[1])
	}
	if j.tools.unknownWrite != "" {
		return report.VerdictNotTested, j.unknownWriteReason()
	}
	if n := j.tot.outcomes[report.OperationExecutionUnknown]; n == j.tot.ops {
		return report.VerdictNotTested, fmt.Sprintf("Whether the write operations were executed is unknown for all %d of them, so nothing could be judged.", n)
	}
	if len(plugins) > 0 {
		p := plugins[0]
		switch {
		case p.Status == report.PluginStatusDisabled && p.Failures == 0:
			return report.VerdictNotTested, fmt.Sprintf("Plugin %q was disabled (%s), so the run cannot pass.", p.Plugin, p.Detail)
		case p.Status == report.PluginStatusDisabled:
			return report.VerdictNotTested, fmt.Sprintf("Plugin %q failed (%s) and was disabled, so the run cannot pass.", p.Plugin, p.Detail)
		}
		return report.VerdictNotTested, fmt.Sprintf("Plugin %q failed (%s), so the run cannot pass.", p.Plugin, p.Detail)
	}
	clean := fmt.Sprintf("none of the %d write operation(s) was executed more than once", j.tot.ops)
	end := "."
	if n := j.tot.idemRepeat; n > 0 {
		// behaviour §4.8: "none … more than once" would not be true.
		clean = "no write operation that is not idempotent was executed more than once"
		end = fmt.Sprintf("; %d idempotent operation(s) were repeated, which is allowed (IDEMPOTENT_REPEAT).", n)
	}
	note := j.unlistedNote()
	switch {
	case sc == "":
		return report.VerdictPass, "Baseline only: no scenario was configured, so no fault was injected; " + clean + end + note
	case sc == "F4":
		return report.VerdictPass, "Baseline only: scenario F4 injects no fault; " + clean + end + note
	case sc == "chaos":
		return report.VerdictPass, fmt.Sprintf("Chaos mode injected %d fault(s) and %s or re-sent before a retry_after deadline%s", j.cov.injected, clean, end) + note
	}
	return report.VerdictPass, fmt.Sprintf("Scenario %s fired and %s or re-sent before a retry_after deadline%s", sc, clean, end) + note
}

// unknownWriteReason is the NOT_TESTED reason for a write forwarded while
// the upstream did not list its tool.
func (j *Judge) unknownWriteReason() string {
	return fmt.Sprintf("Tool %q was called before the upstream listed it, so those calls were forwarded without being judged, and a later listing shows it is a write: its executions are unknown to the judge.", j.tools.unknownWrite)
}

// droppedReason is the verdict reason when the agent sent tools/call
// messages without an id: the proxy did not forward them (a lenient server
// would have executed them unseen), so what the agent did cannot be judged.
func (j *Judge) droppedReason() string {
	return fmt.Sprintf("The agent sent %d tools/call message(s) without an id (the first of %q); such a notification cannot be answered and was not forwarded, so what the agent meant to do cannot be judged (coverage.droppedNotificationCalls).",
		j.cov.dropped, j.cov.droppedTool)
}

// ofThem is "one of them <one>" or "<n> of them <many>".
func ofThem(n int, one, many string) string {
	if n == 1 {
		return "one of them " + one
	}
	return fmt.Sprintf("%d of them %s", n, many)
}

func (j *Judge) moreViolations(shown int) string {
	n := j.lists[catDuplicate].n + j.lists[catRetryAfter].n
	if n > shown {
		return fmt.Sprintf("; %d violation(s) in all", n)
	}
	return ""
}
