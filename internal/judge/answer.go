package judge

import "slices"

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
		j.cov.scenarioFired = true
	}
	if ev.Fault != "" || ev.Outcome == InjectedNotExecuted {
		j.cov.injected++
	}
	if !late {
		j.cov.inFlight--
	}
	pc.done = true
	switch pc.kind {
	case callRead:
		if ev.Outcome == Executed && ev.Fault == "" {
			j.cov.readsOK++
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
	h := op.dropHand(a)
	if late {
		op.n.unknown--
		a.endUnknown = false
	} else {
		op.n.pending--
	}
	failure := ev.Fault != ""
	switch ev.Outcome {
	case Executed:
		a.state = aExecuted
		j.executed(op, a, ev, h)
	case InjectedNotExecuted:
		a.state = aInjected
		op.n.injected++
		op.fail.hadInjected = true
		failure = true
	case UpstreamNotExecuted:
		// Proven not executed: a re-send is an ordinary retry.
		a.state = aNotRun
		op.n.notRun++
		failure = true
	case Incomplete:
		// The upstream's own request for input, never answered: the tool
		// did not complete (behaviour §4.12). No failure: the agent saw
		// the upstream's answer, not a fault. Repeated, it is uncertain
		// (operation.uncertain).
		a.state = aIncomplete
		op.n.notRun++
		op.n.incomplete++
		failure = false
	case UpstreamRejected:
		a.state = aRejected
		op.n.rejected++
		failure = true
	case UnknownTool:
		a.state = aUnknownTool
		op.n.unknownTool++
		failure = false
	default: // Unknown, and anything unrecognised: the safe reading.
		a.state = aUnknown
		op.n.unknown++
		op.fail.unknownDetail = ev.Detail
		failure = true
	}
	a.fault = ev.Fault
	if ev.Fault != "" {
		op.fail.lastFault = ev.Fault
	}
	if failure {
		op.n.failed++
		// A handoff recorded its failure when the agent had it.
		if h == nil && op.fail.record(ev.Call, ev.Time, j.seq) {
			j.awaiting = append(j.awaiting, op)
		}
	}
	if op.rate.start(ev.Call, ev.Time, ev.RetryAfterMs) {
		j.rateWaits.add(op)
	}
	j.keys.answered(a, failure, &j.dirty)
	j.refresh(op)
	j.addCandidate(op)
}

// executed records an execution of op by attempt a (answered by ev at the
// judge's event number j.seq, or from its handoff h when not nil) and keeps
// the duplicate details current in O(1) per pending handoff.
func (j *Judge) executed(op *operation, a *attempt, ev Event, h *handoff) {
	op.n.executed++
	j.noteProcessExecution(op, a)
	seq, reads := j.seq, j.cov.readsOK
	if h != nil {
		seq, reads = h.seq, h.reads
	}
	if ev.Fault != "" {
		op.n.ghosts++
		op.ghost.answered(ev.Fault, seq)
		op.fail.hadInjected = true
	}
	op.dup.record(a, ev, op.n.executed, seq, reads, h)
	op.noteHands(a)
	op.ghost.count(a)
	if h != nil && ev.Fault != "" {
		// Executions the judge heard of before this ghost write's final
		// status, sent after the agent had its fault.
		for _, x := range h.after {
			op.ghost.count(x)
		}
	}
	for _, ks := range a.keys {
		ks.executions++
		j.dirty.key(ks)
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
		if op.fail.seq > sentSeq {
			j.awaiting = append(j.awaiting, op)
			continue
		}
		op.fail.awaiting = false
		if !op.fail.verified {
			op.fail.verified = true
			j.refresh(op)
		}
	}
}

func (j *Judge) onEnd(ev Event) {
	j.cov.ended = true
	ids := make([]int64, 0, j.cov.inFlight)
	for id, pc := range j.calls {
		if !pc.done && (pc.att == nil || !pc.att.endUnknown) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		pc := j.calls[id]
		j.cov.inFlight--
		if pc.kind != callWrite {
			pc.done = true
			continue
		}
		// Left "not done" so a late answer can still settle it.
		a := pc.att
		a.state = aUnknown
		a.endUnknown = true
		a.op.n.pending--
		a.op.n.unknown++
		a.op.fail.unknownDetail = "still in flight when the session ended"
		j.refresh(a.op)
		j.addCandidate(a.op)
	}
}
