package judge

import (
	"encoding/json"
	"time"

	"github.com/cuonztech/agent-harness/internal/report"
)

// astate is the state of one write attempt (behaviour §4.2).
type astate uint8

const (
	aPending     astate = iota // sent, no answer yet (uncertain)
	aExecuted                  // upstream result without isError
	aInjected                  // injected fault, never forwarded
	aNotRun                    // forwarded; the upstream's HTTP status proves no tool ran
	aRejected                  // upstream isError (uncertain: may have written)
	aUnknown                   // no usable answer (uncertain)
	aUnknownTool               // tool not listed upstream; not judged
	aIncomplete                // forwarded; asked for input, never followed up
)

// attempt is one write call of the agent.
type attempt struct {
	session string
	call    int64
	op      *operation
	sent    time.Time
	sendSeq uint64
	state   astate
	fault   string
	keys    []*keyState
	keyed   bool
	keyJoin string
	readsAt int // successful reads completed when it was sent
	// extra: counted in op.ghost.extras (sent after a ghost write had
	// been answered, and executed).
	extra bool
	// hand: the agent was handed an injected failure answer for the
	// attempt before its outcome was known (handoff.go); nil otherwise.
	hand    *handoff
	waited  int64 // ms since the operation's last failure answer
	hasWait bool
	// endUnknown: made unknown by EventEnd; a late answer still counts.
	endUnknown bool
	// shown: the attempt's arguments as the report shows them, nil when
	// they are shown as operations[].arguments (or the attempt is not listed).
	shown *shownArgs
	// join: the plugin rule that joined the attempt to op, nil when its
	// built-in key did.
	join *report.RuleInfo
	// re: what duplicate.resentBy reads of the attempt (resent.go).
	re resendFacts
}

// operation is the judge's state of one write operation. Everything the
// verdict, score and report need is kept as counters updated per event,
// grouped by the rule that reads them: the attempts' outcomes (n), the
// idempotency keys, the duplicate details, the ghost-write rule, the failure
// history the agent saw, the retry_after rule, the near-duplicate rule and
// the upstream processes; contrib and links are its share of the judge's
// totals and category lists.
type operation struct {
	seq       int
	id        string
	key       string
	tool      string
	canonical []byte          // arguments without key fields, canonical JSON
	args      json.RawMessage // the first attempt's raw arguments
	shown     shownArgs       // operations[].arguments
	// joinedBy is the first plugin rule that joined an attempt whose
	// built-in key is another (named in the DUPLICATE_EXECUTION message).
	joinedBy *report.RuleInfo
	// log holds the first maxAttemptLog attempts in order of sending;
	// last is the latest attempt (duplicate.resentBy compares with it).
	log  []*attempt
	last *attempt
	// idempotent: every call of the operation was of an idempotent write
	// tool (behaviour §4.8), so repeats are no violation.
	idempotent bool

	// hands are the attempts with a handoff whose outcome is not known
	// yet (at most maxHandoffs; handoff.go).
	hands []*attempt

	n      attemptCounts
	keys   opKeys
	dup    dupDetails
	ghost  ghostWrite
	fail   failureHistory
	rate   retryAfter
	nearby nearState

	// procs: where the attempts ran, when sessions have upstream
	// processes of their own (nil otherwise).
	procs *procCounts
	// eff is the state probe's effect attributed to the operation, nil
	// when none is (backend.go).
	eff *opEffect

	c     contrib
	links [numCategories]link

	dirty   bool
	inDirty bool
}

// attemptCounts counts an operation's attempts by outcome (behaviour §4.2).
type attemptCounts struct {
	attempts, executed, ghosts, injected, notRun, rejected, unknown, pending, unknownTool int
	// incomplete counts the attempts among notRun that were forwarded and
	// answered input_required, never followed up (behaviour §4.12).
	incomplete int
	// failed counts answers the agent saw as a failure (failedAttempts).
	failed int
}

// opKeys are the idempotency keys of an operation's attempts.
type opKeys struct {
	shown   []string // as shown: redacted with Config.RedactArguments
	set     map[string]struct{}
	keyless int // attempts without a key although the tool accepts one
}

// add records key k (shown as shown) of an attempt.
func (k *opKeys) add(key, shown string) {
	if _, ok := k.set[key]; ok {
		return
	}
	if k.set == nil {
		k.set = map[string]struct{}{}
	}
	k.set[key] = struct{}{}
	k.shown = append(k.shown, shown)
}

// nearObs is a POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS: the later operation
// op may repeat the uncertain operation related. It is never withdrawn: a
// candidate that was in flight may have executed even if its answer later
// says otherwise (isError), and an injected answer after a parallel send is
// rare enough to stay on the safe side (NOT_TESTED).
type nearObs struct {
	op      *operation
	related string
	count   int
	reason  string
	by      report.RuleInfo
	// keyConflict: related is not uncertain; a plugin said it is the
	// same operation as op although the built-in key says otherwise.
	keyConflict bool
}

// uncertain counts attempts that may or may not have executed. An
// incomplete attempt (input_required, never followed up) counts only when
// the operation has another attempt that executed or may have: alone it did
// not execute (behaviour §4.12), but that it did not run is the upstream's
// word only, as with isError, so a repeat of it is a possible duplicate.
func (op *operation) uncertain() int {
	u := op.n.pending + op.n.unknown + op.n.rejected
	if op.n.incomplete > 0 && op.n.executed+u+op.n.incomplete >= 2 {
		u += op.n.incomplete
	}
	return u
}

// nearUncertain counts attempts a later call with other arguments is
// compared with (behaviour §4.6): no answer yet, no usable answer, or a ghost
// write. Upstream-rejected attempts are excluded: a re-send with changed
// arguments after isError is indistinguishable from fixing the arguments.
func (op *operation) nearUncertain() int { return op.n.pending + op.n.unknown + op.n.ghosts }

// contrib is what one operation contributes to the judge's running totals.
// The judge subtracts the old contrib and adds the new one whenever the
// operation changes, so totals never need a rescan.
type contrib struct {
	live        bool
	outcome     report.OperationOutcome
	judged      bool
	safe        bool
	fh          bool
	fhVal       int
	extras      int
	ghostExtras int
	ghostFault  string // op.ghost.fault, for the per-kind tallies
	retry       int
	possibleDup bool
	near        bool
	unverified  bool
	idemRepeat  bool // IDEMPOTENT_REPEAT
	// acrossProcs: REPEAT_ACROSS_UPSTREAM_PROCESSES (outcome unknown).
	acrossProcs bool
	// decidedBy is decidedBackend when the state probe's effect changed
	// the outcome (byBackend), else decidedWire; deduplicated and
	// disagrees are DEDUPLICATED_BY_BACKEND and BACKEND_DISAGREES.
	decidedBy               string
	deduplicated, disagrees bool
	// executed is the wire's executions (the state object's per-tool sum).
	executed int
	// client: the extras were re-sent by the client library
	// (duplicate.resentBy), so CLIENT_RETRY replaces the prompt patches.
	client bool
}

func (op *operation) contrib() contrib {
	var c contrib
	if op.n.attempts-op.n.unknownTool <= 0 {
		return c
	}
	c.live = true
	c.executed = op.n.executed
	e, u := op.n.executed, op.uncertain()
	switch {
	case op.idempotent:
		c.outcome = op.idempotentOutcome()
		c.idemRepeat = op.idempotentRepeat()
	case e+u >= 2 && op.acrossProcesses():
		c.outcome = report.OperationExecutionUnknown
		c.acrossProcs = true
	case e >= 2:
		c.outcome = report.OperationDuplicate
	case e+u >= 2:
		c.outcome = report.OperationExecutionUnknown
		c.possibleDup = true
	case e == 1:
		c.outcome = report.OperationExecuted
	case op.n.rejected == 1:
		c.outcome = report.OperationUpstreamRejected
	case u == 1:
		c.outcome = report.OperationExecutionUnknown
	default:
		c.outcome = report.OperationNotExecuted
	}
	c.decidedBy = decidedWire
	if op.eff != nil {
		op.byBackend(&c)
		if c.decidedBy == decidedBackend && c.outcome == report.OperationDuplicate {
			e = int(op.eff.e)
		}
	}
	c.judged = c.outcome != report.OperationExecutionUnknown
	// Without the backend, exactly e >= 2 && !op.idempotent && !c.acrossProcs.
	dup := c.outcome == report.OperationDuplicate
	c.safe = c.judged && !dup
	if dup {
		c.extras = e - 1
		c.ghostExtras = min(op.ghost.extras, c.extras)
		c.client = op.dup.resent.value() == report.ResentByClientLibrary
	}
	c.ghostFault = op.ghost.fault
	c.retry = op.rate.early
	c.unverified = op.ghostOnly() && !op.fail.verified
	c.near = op.nearby.obs != nil
	if op.fail.hadInjected && (c.judged || c.retry > 0) {
		c.fh = true
		switch {
		case dup || c.retry > 0:
			c.fhVal = 0
		case c.unverified:
			c.fhVal = 50
		default:
			c.fhVal = 100
		}
	}
	return c
}

// idempotentOutcome is the outcome of an idempotent operation (behaviour
// §4.8): repeats have no additional effect, so one execution is enough for
// EXECUTED, and attempts with an unknown outcome make it unknown only when
// none executed. Never a possible duplicate.
func (op *operation) idempotentOutcome() report.OperationOutcome {
	switch {
	case op.n.executed >= 1:
		return report.OperationExecuted
	case op.n.pending+op.n.unknown > 0:
		return report.OperationExecutionUnknown
	case op.n.rejected > 0:
		return report.OperationUpstreamRejected
	}
	return report.OperationNotExecuted
}

// idempotentRepeat reports whether an idempotent operation executed more
// than once, or executed and was also re-sent with an unknown outcome:
// IDEMPOTENT_REPEAT, no violation.
func (op *operation) idempotentRepeat() bool {
	return op.idempotent && op.n.executed >= 1 && op.n.executed+op.uncertain() >= 2
}

// ghostOnly reports whether the only execution is a ghost write (executed,
// agent saw an injected fault) that was never followed by another attempt.
func (op *operation) ghostOnly() bool {
	return op.n.executed == 1 && op.n.ghosts == 1 && op.uncertain() == 0 && !op.fail.resent
}

// unclState counts calls of one unclassified tool with the same arguments.
type unclState struct {
	seq   int
	id    string
	tool  string
	count int
	dirty bool
}

// promptGhost is the ghost extras the GHOST_WRITE prompt patch is for: none
// when the client library re-sent them (CLIENT_RETRY).
func (c contrib) promptGhost() int {
	if c.client {
		return 0
	}
	return c.ghostExtras
}

// promptIdem is the extras without a ghost write before them the
// IDEMPOTENCY prompt patch is for: none when the client library re-sent
// them.
func (c contrib) promptIdem() int {
	if c.client {
		return 0
	}
	return c.extras - c.ghostExtras
}
