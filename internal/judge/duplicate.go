package judge

import "github.com/cuonztech/agent-harness/internal/report"

// dupDetails are the facts of an operation's executions that
// violations[].duplicate and RECOVERED_BY_RETRY report, maintained as
// executions arrive.
type dupDetails struct {
	// keyed and unkeyed count executions with and without a key;
	// keysDiffer: not all keyed ones carried firstKey (duplicate.keyUse).
	keyed, unkeyed int
	firstKey       string
	keysDiffer     bool
	// digestFirst is the first execution's response digest; digestDiffer
	// and digestMissing say whether every one was identical and non-empty.
	digestFirst   string
	digestDiffer  bool
	digestMissing bool
	// parallel: two executions overlapped (duplicate.parallel).
	parallel     bool
	maxAnswerSeq uint64
	// maxSendReads and minAnswerReads are the successful reads completed
	// when an execution was sent (the most) and answered (the fewest; -1:
	// none answered yet), for duplicate.verifiedBefore.
	maxSendReads   int
	minAnswerReads int
	// waited is the wait before the first execution that followed a
	// failure answer without an injected fault (RECOVERED_BY_RETRY).
	waited    int64
	waitedSet bool
	// resent folds who re-sent the executions after the first
	// (duplicate.resentBy).
	resent resentFold
}

func (d *dupDetails) record(a *attempt, ev Event, n int, seq uint64, readsOK int, h *handoff) {
	if a.keyed {
		d.keyed++
		if d.keyed == 1 {
			d.firstKey = a.keyJoin
		} else if a.keyJoin != d.firstKey {
			d.keysDiffer = true
		}
	} else {
		d.unkeyed++
	}
	digest := ev.ResponseDigest
	if digest == "" {
		d.digestMissing = true
	}
	if n == 1 {
		d.digestFirst = digest
	} else if digest != d.digestFirst {
		d.digestDiffer = true
	}
	// Two executions overlap when an earlier one was answered after this
	// one was sent.
	switch {
	case n <= 1:
	case h != nil:
		d.parallel = d.parallel || h.maxAnswer > a.sendSeq || h.overlapped
	case d.maxAnswerSeq > a.sendSeq:
		d.parallel = true
	}
	if n > 1 {
		d.resent.add(a.re.resentBy)
	}
	d.maxAnswerSeq = max(d.maxAnswerSeq, seq)
	d.maxSendReads = max(d.maxSendReads, a.readsAt)
	if d.minAnswerReads < 0 || readsOK < d.minAnswerReads {
		d.minAnswerReads = readsOK
	}
	if ev.Fault == "" && a.hasWait && !d.waitedSet {
		d.waited, d.waitedSet = a.waited, true
	}
}

// keyUse is duplicate.keyUse over the executions.
func (d *dupDetails) keyUse() string {
	switch {
	case d.keyed == 0:
		return report.KeyUseNone
	case d.unkeyed > 0:
		return report.KeyUseMixed
	case d.keysDiffer:
		return report.KeyUseDifferent
	}
	return report.KeyUseSame
}

// verifiedBefore: a read succeeded after one execution was answered and
// before another was sent (duplicate.verifiedBefore).
func (d *dupDetails) verifiedBefore() bool {
	return d.minAnswerReads >= 0 && d.maxSendReads > d.minAnswerReads
}

// identical: every execution got a non-empty, identical response digest.
func (d *dupDetails) identical() bool { return !d.digestMissing && !d.digestDiffer }

// ghostWrite is an operation's state under the ghost-write rule (F1 and
// plugin faults that answer a failure after the write ran): the first
// ghost write's fault kind, and the executions sent after one was answered.
type ghostWrite struct {
	seen bool // a ghost write was answered
	// fault is the injected fault kind of the first ghost write
	// ("timeout" for F1); every extra followed it.
	fault string
	// seq is the judge's event number at which the agent had the first
	// ghost write's failure answer: the answer event, or the handoff
	// before it (handoff.go).
	seq uint64
	// extras counts executions whose attempt was sent after a ghost
	// write had been answered.
	extras int
}

// answered records a ghost write answered with fault at event number
// seq. The first is the one the agent had first: a handoff's seq may be
// earlier than a ghost write answered before it.
func (g *ghostWrite) answered(fault string, seq uint64) {
	if !g.seen || seq < g.seq {
		g.fault, g.seq = fault, seq
	}
	g.seen = true
}

// count counts a's execution as an extra when a was sent after the first
// ghost write had been answered (once per attempt).
func (g *ghostWrite) count(a *attempt) {
	if g.seen && !a.extra && a.sendSeq > g.seq {
		a.extra = true
		g.extras++
	}
}
