package judge

import (
	"math"
	"slices"
	"time"
)

func (j *Judge) onAnswer(ev Event) {
	pc := j.calls[ev.Call]
	if pc == nil {
		return
	}
	late := pc.att != nil && pc.att.endUnknown
	if pc.done && !late {
		return
	}
	if ev.Scenario != "" {
		j.scenarioFired = true
	}
	if ev.Fault != "" || ev.Outcome == InjectedNotExecuted {
		j.injectedCount++
	}
	if !late {
		j.inFlight--
	}
	pc.done = true
	switch pc.kind {
	case callRead:
		if ev.Outcome == Executed && ev.Fault == "" {
			j.readsOK++
			j.flushAwaiting(pc.sentSeq)
		}
		return
	case callOther:
		return
	}
	j.writeAnswer(pc.att, ev, late)
}

// writeAnswer settles a write attempt (behaviour §4.2). A late answer to an
// attempt the session end had made unknown replaces that unknown outcome
// (behaviour §4.5: a call answered within the grace period counts normally).
func (j *Judge) writeAnswer(a *attempt, ev Event, late bool) {
	op := a.op
	if late {
		op.unknown--
		a.endUnknown = false
	} else {
		op.pending--
	}
	failure := ev.Fault != ""
	switch ev.Outcome {
	case Executed:
		a.state = aExecuted
		j.executed(op, a, ev)
	case InjectedNotExecuted:
		a.state = aInjected
		op.injected++
		op.hadInjected = true
		failure = true
	case UpstreamNotExecuted:
		// Proven not executed: a re-send is an ordinary retry.
		a.state = aNotRun
		op.notRun++
		failure = true
	case UpstreamRejected:
		a.state = aRejected
		op.rejected++
		failure = true
	case UnknownTool:
		a.state = aUnknownTool
		op.unknownTool++
		failure = false
	default: // Unknown, and anything unrecognised: the safe reading.
		a.state = aUnknown
		op.unknown++
		op.unknownDetail = ev.Detail
		failure = true
	}
	a.fault = ev.Fault
	if ev.Fault != "" {
		op.lastFault = ev.Fault
	}
	if failure {
		op.failedSeen++
		op.hasFailure = true
		op.lastFailureAt = ev.Time
		op.lastFailureSeq = j.seq
		op.lastFailureCall = ev.Call
		op.verified = false
		if !op.awaiting {
			op.awaiting = true
			j.awaiting = append(j.awaiting, op)
		}
	}
	// Any answer announcing a retry_after starts the wait, also a plugin
	// fault that forwarded the call and replaced its result with a 429.
	j.rateLimited(op, ev.Call, ev.Time, ev.RetryAfterMs)
	for _, ks := range a.keys {
		if ks.last != a {
			continue
		}
		ks.silent = failure
		if failure {
			if !ks.inSilentAll {
				ks.inSilentAll = true
				j.silentAll = append(j.silentAll, ks)
			}
			j.silentTool[op.tool] = append(j.silentTool[op.tool], ks)
		}
		j.markKeyDirty(ks)
	}
	j.refresh(op)
	j.addCandidate(op)
}

// executed records an execution of op by attempt a and keeps the duplicate
// details current in O(1).
func (j *Judge) executed(op *operation, a *attempt, ev Event) {
	op.executed++
	j.noteProcessExecution(op, a)
	if ev.Fault != "" {
		op.ghosts++
		if !op.ghostAnswered {
			op.ghostFault = ev.Fault
		}
		op.ghostAnswered = true
		op.hadInjected = true
	}
	if a.keyed {
		op.execKeyed++
		if op.execKeyed == 1 {
			op.execFirstKey = a.keyJoin
		} else if a.keyJoin != op.execFirstKey {
			op.execKeysDiffer = true
		}
	} else {
		op.execUnkeyed++
	}
	d := ev.ResponseDigest
	if d == "" {
		op.digestMissing = true
	}
	if op.executed == 1 {
		op.digestFirst = d
	} else if d != op.digestFirst {
		op.digestDiffer = true
	}
	// Two executions overlap when an earlier one was answered after this
	// one was sent.
	if op.executed > 1 && op.maxExecAnswerSeq > a.sendSeq {
		op.parallel = true
	}
	op.maxExecAnswerSeq = max(op.maxExecAnswerSeq, j.seq)
	op.maxExecSendReads = max(op.maxExecSendReads, a.readsAt)
	if op.minExecAnswerReads < 0 || j.readsOK < op.minExecAnswerReads {
		op.minExecAnswerReads = j.readsOK
	}
	if a.ghostPre {
		op.ghostExtras++
	}
	if ev.Fault == "" && a.hasWait && !op.execWaitedSet {
		op.execWaited, op.execWaitedSet = a.waited, true
	}
	for _, ks := range a.keys {
		ks.executions++
		j.markKeyDirty(ks)
	}
}

// maxRetryAfterMs is the longest retry_after wait a time.Duration holds.
const maxRetryAfterMs = int64(math.MaxInt64 / int64(time.Millisecond))

// rateLimited starts op's retry_after wait at the time of the 429 answer.
// The deadline is measured from the answer, when the agent learns of it, so
// a re-send is early exactly when waitedMs < requiredMs.
func (j *Judge) rateLimited(op *operation, call int64, t time.Time, retryAfterMs int64) {
	if retryAfterMs <= 0 {
		return
	}
	// A wait beyond what a time.Duration holds (the live maximum is one
	// day, a trace's is refused above it) would overflow into a deadline
	// in the past and make an immediate re-send pass: wait as long as
	// representable instead.
	retryAfterMs = min(retryAfterMs, maxRetryAfterMs)
	op.rateActive = true
	op.rateCall = call
	op.rateAnswerAt = t
	op.rateDeadline = t.Add(time.Duration(retryAfterMs) * time.Millisecond)
	op.rateRequired = retryAfterMs
	if !op.inRateWaits {
		op.inRateWaits = true
		j.rateWaits[op.tool] = append(j.rateWaits[op.tool], op)
	}
}

// flushAwaiting marks the operations waiting for a check as verified when
// the read that just succeeded was sent after their last failure answer
// (event number sentSeq): a read sent before the failure, or in parallel
// with the failed write, is no check of it. The others keep waiting; they
// are only those whose failure came while this read was in flight.
func (j *Judge) flushAwaiting(sentSeq uint64) {
	list := j.awaiting
	j.awaiting = nil
	for _, op := range list {
		if op.lastFailureSeq > sentSeq {
			j.awaiting = append(j.awaiting, op)
			continue
		}
		op.awaiting = false
		if !op.verified {
			op.verified = true
			j.refresh(op)
		}
	}
}

func (j *Judge) onEnd(ev Event) {
	j.ended = true
	ids := make([]int64, 0, j.inFlight)
	for id, pc := range j.calls {
		if !pc.done && (pc.att == nil || !pc.att.endUnknown) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		pc := j.calls[id]
		j.inFlight--
		if pc.kind != callWrite {
			pc.done = true
			continue
		}
		// Left "not done" so a late answer can still settle it.
		a := pc.att
		a.state = aUnknown
		a.endUnknown = true
		a.op.pending--
		a.op.unknown++
		a.op.unknownDetail = "still in flight when the session ended"
		j.refresh(a.op)
		j.addCandidate(a.op)
	}
}
