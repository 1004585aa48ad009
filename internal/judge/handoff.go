package judge

import "time"

// maxHandoffs bounds an operation's pending handoffs; a handoff beyond them
// is not kept, and its attempt's answer counts from its answer event (the
// labels as before handoffs were known; never the verdict).
const maxHandoffs = 16

// handoff is the moment the agent was handed an injected failure answer
// for a write attempt whose outcome was not known yet: EventDelivered with
// a Fault ahead of the attempt's EventAnswer — F1 on a task-creating write,
// whose ghost write the judge learns of only from the task's final status
// (behaviour §4.13). The attempt's answer, as the agent saw it, counts from
// here: the failure it saw, and for duplicate.parallel, afterTimeout and
// verifiedBefore the moment its execution was answered.
type handoff struct {
	seq   uint64    // the judge's event number of the handoff
	at    time.Time // its time
	reads int       // successful reads completed then
	// maxAnswer is the operation's latest execution answer (its event
	// number) then: one after the attempt was sent overlapped it.
	maxAnswer uint64
	// overlapped: an execution answered since was sent before the
	// handoff.
	overlapped bool
	// after are the attempts executed since that were sent after the
	// handoff: extras of the ghost write the final status may prove.
	after []*attempt
}

// handedOff starts a's handoff (EventDelivered with Fault, its answer not
// known): the failure answer the agent saw is recorded now.
func (j *Judge) handedOff(a *attempt, ev Event) {
	op := a.op
	if a.hand != nil || len(op.hands) >= maxHandoffs {
		return
	}
	a.hand = &handoff{seq: j.seq, at: ev.Time, reads: j.cov.readsOK, maxAnswer: op.dup.maxAnswerSeq}
	op.hands = append(op.hands, a)
	if op.fail.record(a.call, ev.Time, j.seq) {
		j.awaiting = append(j.awaiting, op)
	}
	j.refresh(op)
}

// dropHand removes a from the pending handoffs and returns its handoff
// (nil when it had none).
func (op *operation) dropHand(a *attempt) *handoff {
	h := a.hand
	if h == nil {
		return nil
	}
	for i, x := range op.hands {
		if x == a {
			op.hands = append(op.hands[:i], op.hands[i+1:]...)
			break
		}
	}
	return h
}

// noteHands records the execution of a in each pending handoff of op.
func (op *operation) noteHands(a *attempt) {
	for _, x := range op.hands {
		if a.sendSeq < x.hand.seq {
			x.hand.overlapped = true
		} else {
			x.hand.after = append(x.hand.after, a)
		}
	}
}
