package judge

import "time"

// failureHistory is an operation's failures as the agent saw them: what
// the verification rule (a read after the last failure, behaviour §4.7),
// the waited times of re-sends and the observations read.
type failureHistory struct {
	hadInjected   bool   // an answer carried an injected fault (failure handling is scored)
	lastFault     string // the last injected fault kind
	unknownDetail string // why the last unknown attempt has no usable answer

	seen bool // a failure answer arrived
	at   time.Time
	// seq is the judge's event number of the last failure answer, call
	// the call it answered.
	seq  uint64
	call int64

	resent   bool // an attempt was sent after a failure answer
	verified bool // a read succeeded after the last failure answer
	awaiting bool // in Judge.awaiting
}

// record notes a failure answer to call at time t (event number seq) and
// reports whether the operation must join the judge's list of operations
// waiting for a read.
func (f *failureHistory) record(call int64, t time.Time, seq uint64) (await bool) {
	f.seen = true
	f.at = t
	f.seq = seq
	f.call = call
	f.verified = false
	if f.awaiting {
		return false
	}
	f.awaiting = true
	return true
}

// delivered moves the time of call's failure answer to t, when the agent
// was handed it (EventDelivered); only forward, and only while that answer
// is the last failure.
func (f *failureHistory) delivered(call int64, t time.Time) {
	if f.seen && f.call == call && t.After(f.at) {
		f.at = t
	}
}

// waitedSince is the whole milliseconds since the last failure answer, and
// whether there was one; a write at t after a failure is a re-send.
func (f *failureHistory) waitedSince(t time.Time) (ms int64, ok bool) {
	if !f.seen {
		return 0, false
	}
	f.resent = true
	return msBetween(f.at, t), true
}
