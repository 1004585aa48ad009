package judge

import (
	"math"
	"time"
)

// retryAfter is an operation's state under the retry_after rule (behaviour
// §3 F2): the wait a 429 answer started, the early re-sends, and the writes
// of the operation made while another operation of its tool was waiting.
type retryAfter struct {
	active   bool
	answerAt time.Time
	// call is the call whose 429 started the wait.
	call     int64
	deadline time.Time
	required int64
	inWaits  bool // in Judge.rateWaits

	// early counts re-sends before the deadline (RETRY_AFTER_VIOLATED);
	// firstWaited and firstRequired are the first one's wait and the
	// retry_after it ignored.
	early                      int
	firstWaited, firstRequired int64

	// other is the first operation of the same tool that was waiting out a
	// 429 when this one was written (OTHER_CALL_DURING_RETRY_AFTER);
	// otherCount counts those writes.
	other      string
	otherCount int
}

// maxRetryAfterMs is the longest retry_after wait a time.Duration holds.
const maxRetryAfterMs = int64(math.MaxInt64 / int64(time.Millisecond))

// start starts the wait at the time t of the 429 answer to call and reports
// whether the operation must join its tool's wait list. The deadline is
// measured from the answer, when the agent learns of it, so a re-send is
// early exactly when waitedMs < requiredMs. Any answer announcing a
// retry_after starts it, also a plugin fault that forwarded the call and
// replaced its result with a 429.
func (r *retryAfter) start(call int64, t time.Time, retryAfterMs int64) (join bool) {
	if retryAfterMs <= 0 {
		return false
	}
	// A wait beyond what a time.Duration holds (the live maximum is one
	// day, a trace's is refused above it) would overflow into a deadline
	// in the past and make an immediate re-send pass: wait as long as
	// representable instead.
	retryAfterMs = min(retryAfterMs, maxRetryAfterMs)
	r.active = true
	r.call = call
	r.answerAt = t
	r.deadline = t.Add(time.Duration(retryAfterMs) * time.Millisecond)
	r.required = retryAfterMs
	if r.inWaits {
		return false
	}
	r.inWaits = true
	return true
}

// resend applies the rule to a re-send at time t: before the deadline it
// is an early re-send, after it the wait is over.
func (r *retryAfter) resend(t time.Time) {
	if !r.active {
		return
	}
	if !t.Before(r.deadline) {
		r.active = false
		return
	}
	r.early++
	if r.early == 1 {
		r.firstWaited = msBetween(r.answerAt, t)
		r.firstRequired = r.required
	}
}

// waiting reports whether the wait is still running at t.
func (r *retryAfter) waiting(t time.Time) bool { return r.active && t.Before(r.deadline) }

// delivered moves the start of the wait that call's answer began to t, the
// moment the agent was handed the answer (EventDelivered); only forward.
func (r *retryAfter) delivered(call int64, t time.Time) {
	if r.active && r.call == call && t.After(r.answerAt) {
		r.deadline = r.deadline.Add(t.Sub(r.answerAt))
		r.answerAt = t
	}
}

// rateWaits are, per tool, the operations waiting out a 429.
type rateWaits map[string][]*operation

func (w rateWaits) add(op *operation) { w[op.tool] = append(w[op.tool], op) }

// check applies the retry_after rule to a write of op at time t: a re-send
// of the same operation before its deadline is a violation; a write of
// another operation of the same tool during the wait is
// OTHER_CALL_DURING_RETRY_AFTER. Waits that are over leave the list.
func (w rateWaits) check(op *operation, t time.Time) {
	op.rate.resend(t)
	waits := w[op.tool]
	n := 0
	for _, o := range waits {
		if !o.rate.waiting(t) {
			o.rate.inWaits = false
			continue
		}
		waits[n] = o
		n++
		if o != op {
			op.rate.otherCount++
			if op.rate.other == "" {
				op.rate.other = o.id
			}
		}
	}
	clear(waits[n:])
	if n == 0 {
		delete(w, op.tool)
	} else {
		w[op.tool] = waits[:n]
	}
}
