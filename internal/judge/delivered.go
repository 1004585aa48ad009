package judge

// onDelivered moves the start of the waits an injected answer began to the
// moment the agent was handed that answer (EventDelivered). The answer event
// is applied before the report file is written, so its time is earlier than
// the agent's first chance to read the fault; measuring a retry_after
// deadline from it would let an early re-send look late (a wrong PASS).
// Times only move forward, and only for the waits that this call's answer
// started: a later failure of the same operation keeps its own time. A
// delivery with a Fault that comes before the write's answer is a handoff
// (handoff.go).
func (j *Judge) onDelivered(ev Event) {
	pc := j.calls[ev.Call]
	if pc == nil || pc.att == nil {
		return
	}
	op := pc.att.op
	if ev.TransportFault && pc.att.re.transportAt.IsZero() {
		pc.att.re.transportAt = ev.Time
	}
	if ev.Fault != "" && !pc.done && pc.kind == callWrite {
		// Handed over before the attempt's answer (handoff.go).
		j.handedOff(pc.att, ev)
		return
	}
	op.fail.delivered(ev.Call, ev.Time)
	op.rate.delivered(ev.Call, ev.Time)
}
