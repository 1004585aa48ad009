package judge

// Alert is a violation at the moment it appeared: an operation that was
// just executed a second time (DUPLICATE_EXECUTION) or just re-sent before
// a 429's retry_after (RETRY_AFTER_VIOLATED). The proxy prints one line per
// alert while the session runs (behaviour §2.8); the report's violations stay
// the complete, final account.
type Alert struct {
	// Type is "DUPLICATE_EXECUTION" or "RETRY_AFTER_VIOLATED".
	Type string
	// Tool and Operation name the write operation ("op-1", …).
	Tool      string
	Operation string
	// Executions is how often the operation had executed when the alert
	// was raised (DUPLICATE_EXECUTION: 2 unless answers arrived together).
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
)

// noteAlerts raises an alert for each violation op has just acquired. Each
// violation of an operation is raised once, however often it grows. It is
// called from refresh for operations with a violation only, so a session
// without violations never reaches it.
func (j *Judge) noteAlerts(op *operation, c contrib) {
	if j.alerted == nil {
		j.alerted = map[*operation]uint8{}
	}
	had := j.alerted[op]
	if c.extras > 0 && had&alertedDuplicate == 0 {
		a := Alert{Type: violationDuplicate, Tool: op.tool, Operation: op.id, Executions: op.executed}
		switch {
		case op.ghostExtras > 0:
			a.Note = "again after " + faultPhrase(op.ghostFault)
		case op.parallel:
			a.Note = "attempts sent in parallel"
		}
		j.alerts = append(j.alerts, a)
		had |= alertedDuplicate
	}
	if c.retry > 0 && had&alertedRetryAfter == 0 {
		j.alerts = append(j.alerts, Alert{Type: violationRetryAfter, Tool: op.tool, Operation: op.id,
			WaitedMs: op.retryWaited, RequiredMs: op.retryRequired})
		had |= alertedRetryAfter
	}
	j.alerted[op] = had
	j.alertCount.Store(int64(len(j.alerts)))
}

// AlertCount returns how many alerts were raised so far. It takes no lock,
// so a caller can check for news after every event at no cost.
func (j *Judge) AlertCount() int { return int(j.alertCount.Load()) }

// AlertsSince returns the alerts raised after the first n, in order.
func (j *Judge) AlertsSince(n int) []Alert {
	j.mu.Lock()
	defer j.mu.Unlock()
	if n < 0 || n >= len(j.alerts) {
		return nil
	}
	return append([]Alert(nil), j.alerts[n:]...)
}
