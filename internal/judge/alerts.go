package judge

import (
	"fmt"
	"sync/atomic"
)

// Alert is a violation at the moment it appeared: an operation that was
// just executed a second time (DUPLICATE_EXECUTION) or just re-sent before
// a 429's retry_after (RETRY_AFTER_VIOLATED). The proxy prints one line per
// alert while the session runs (behaviour §2.8); the report's violations stay
// the complete, final account.
type Alert struct {
	// Type is "DUPLICATE_EXECUTION", "RETRY_AFTER_VIOLATED", or
	// "DEDUPLICATED_BY_BACKEND" (no violation: a state probe cleared the
	// wire's duplicate, behaviour §16.3).
	Type string
	// Tool and Operation name the write operation ("op-1", …).
	Tool      string
	Operation string
	// Executions is how often the operation had executed when the alert
	// was raised (DUPLICATE_EXECUTION: 2 for its first alert unless
	// answers arrived together; one alert more each time it grows).
	Executions int
	// Note says what made the duplicate notable, in the verdict reason's
	// words: "again after a timeout", "attempts sent in parallel", or "".
	Note string
	// WaitedMs and RequiredMs are the RETRY_AFTER_VIOLATED re-send's wait
	// and the retry_after it ignored.
	WaitedMs, RequiredMs int64
}

// Alert bits of an operation in Judge.alerted.
const (
	alertedDuplicate uint8 = 1 << iota
	alertedRetryAfter
	alertedDeduplicated
)

// alerter is the violations as they appeared.
type alerter struct {
	list   []Alert
	raised map[*operation]alertState
	count  atomic.Int64
}

// alertState is what was raised for an operation so far.
type alertState struct {
	bits uint8
	// executions is the count of the operation's last duplicate alert.
	executions int
}

// noteAlerts raises an alert for each violation op has just acquired. A
// duplicate execution is raised again each time the operation's count of
// executions grows (so the last live line of an operation says the count
// the final summary says, behaviour §2.8); a retry_after violation once.
// It is called from refresh for operations with a violation only, so a
// session without violations never reaches it.
func (al *alerter) note(op *operation, c contrib) {
	if al.raised == nil {
		al.raised = map[*operation]alertState{}
	}
	st := al.raised[op]
	had := st.bits
	if n := op.executions(); c.extras > 0 && (had&alertedDuplicate == 0 || n > st.executions) {
		st.executions = n
		a := Alert{Type: violationDuplicate, Tool: op.tool, Operation: op.id, Executions: n}
		switch {
		case c.decidedBy == decidedBackend:
			a.Note = fmt.Sprintf("by the backend's count (state probe counter %q rose by %d; the wire saw %d)", op.eff.counter, op.eff.e, op.n.executed)
		case op.ghost.extras > 0:
			a.Note = "again after " + faultPhrase(op.ghost.fault)
		case op.dup.parallel:
			a.Note = "attempts sent in parallel"
		}
		if c.client {
			// duplicate.resentBy: the fix is the client's retry setting.
			if a.Note != "" {
				a.Note += ", "
			}
			a.Note += "re-sent by the MCP client library (CLIENT_RETRY)"
		}
		al.list = append(al.list, a)
		had |= alertedDuplicate
	}
	if c.deduplicated && had&alertedDeduplicated == 0 {
		// The wire's duplicate alert said FAIL; this line says why the
		// summary does not (behaviour §16.3).
		al.list = append(al.list, Alert{Type: obsDeduplicatedByBackend, Tool: op.tool, Operation: op.id, Executions: op.n.executed,
			Note: fmt.Sprintf("state probe counter %q rose by 1", op.eff.counter)})
		had |= alertedDeduplicated
	}
	if c.retry > 0 && had&alertedRetryAfter == 0 {
		al.list = append(al.list, Alert{Type: violationRetryAfter, Tool: op.tool, Operation: op.id,
			WaitedMs: op.rate.firstWaited, RequiredMs: op.rate.firstRequired})
		had |= alertedRetryAfter
	}
	st.bits = had
	al.raised[op] = st
	al.count.Store(int64(len(al.list)))
}

// AlertCount returns how many alerts were raised so far. It takes no lock,
// so a caller can check for news after every event at no cost.
func (j *Judge) AlertCount() int { return int(j.alerts.count.Load()) }

// AlertsSince returns the alerts raised after the first n, in order.
func (j *Judge) AlertsSince(n int) []Alert {
	j.mu.Lock()
	defer j.mu.Unlock()
	if n < 0 || n >= len(j.alerts.list) {
		return nil
	}
	return append([]Alert(nil), j.alerts.list[n:]...)
}
