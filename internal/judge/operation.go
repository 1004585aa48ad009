package judge

import (
	"encoding/json"
	"time"
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
)

// attempt is one write call of the agent.
type attempt struct {
	session  string
	call     int64
	op       *operation
	sent     time.Time
	sendSeq  uint64
	state    astate
	fault    string
	keys     []*keyState
	keyed    bool
	keyJoin  string
	readsAt  int // successful reads completed when it was sent
	ghostPre bool
	waited   int64 // ms since the operation's last failure answer
	hasWait  bool
	// endUnknown: made unknown by EventEnd; a late answer still counts.
	endUnknown bool
	// shown: the attempt's arguments as the report shows them, nil when
	// they are shown as operations[].arguments (or the attempt is not listed).
	shown *shownArgs
	// join: the plugin rule that joined the attempt to op, nil when its
	// built-in key did.
	join *RuleInfo
}

// operation is the judge's state of one write operation. Everything the
// verdict, score and report need is kept as counters updated per event.
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
	joinedBy *RuleInfo
	// log holds the first maxAttemptLog attempts in order of sending.
	log []*attempt
	// idempotent: every call of the operation was of an idempotent write
	// tool (behaviour §4.8), so repeats are no violation.
	idempotent bool

	attempts, executed, ghosts, injected, notRun, rejected, unknown, pending, unknownTool int

	failedSeen int
	keys       []string // as shown: redacted with Config.RedactArguments
	keySet     map[string]struct{}
	keyless    int // attempts without a key although the tool accepts one

	// Duplicate details, maintained as executions arrive.
	execKeyed, execUnkeyed int
	execFirstKey           string
	execKeysDiffer         bool
	digestFirst            string
	digestDiffer           bool
	digestMissing          bool
	parallel               bool
	maxExecAnswerSeq       uint64
	maxExecSendReads       int
	minExecAnswerReads     int // -1: no execution answered yet
	ghostExtras            int
	ghostAnswered          bool
	// ghostFault is the injected fault kind of the first ghost write
	// answered ("timeout" for F1); every ghost extra followed it.
	ghostFault string

	// Failure history as the agent saw it.
	hadInjected   bool
	lastFault     string
	unknownDetail string // why the last unknown attempt has no usable answer
	hasFailure    bool
	lastFailureAt time.Time
	// lastFailureSeq is the judge's event number of that answer.
	lastFailureSeq uint64
	// lastFailureCall is the call whose answer that was.
	lastFailureCall int64
	resent          bool // an attempt was sent after a failure answer
	verified        bool // a read succeeded after the last failure answer
	awaiting        bool // in Judge.awaiting
	execWaited      int64
	execWaitedSet   bool

	// 429 (retry_after) state.
	rateActive   bool
	rateAnswerAt time.Time
	// rateCall is the call whose 429 started the wait.
	rateCall      int64
	rateDeadline  time.Time
	rateRequired  int64
	inRateWaits   bool
	retryCount    int
	retryWaited   int64
	retryRequired int64

	// Observations that involve another operation.
	otherDuringRetry      string
	otherDuringRetryCount int
	otherWrite            string
	otherWriteCount       int
	near                  *nearObs // POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS
	inCands               bool

	// procs: where the attempts ran, when sessions have upstream
	// processes of their own (nil otherwise).
	procs *procCounts

	c     contrib
	links [numCategories]link

	dirty   bool
	inDirty bool
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
	by      RuleInfo
	// keyConflict: related is not uncertain; a plugin said it is the
	// same operation as op although the built-in key says otherwise.
	keyConflict bool
}

// uncertain counts attempts that may or may not have executed.
func (op *operation) uncertain() int { return op.pending + op.unknown + op.rejected }

// nearUncertain counts attempts a later call with other arguments is
// compared with (behaviour §4.6): no answer yet, no usable answer, or a ghost
// write. Upstream-rejected attempts are excluded: a re-send with changed
// arguments after isError is indistinguishable from fixing the arguments.
func (op *operation) nearUncertain() int { return op.pending + op.unknown + op.ghosts }

// contrib is what one operation contributes to the judge's running totals.
// The judge subtracts the old contrib and adds the new one whenever the
// operation changes, so totals never need a rescan.
type contrib struct {
	live        bool
	outcome     string
	judged      bool
	safe        bool
	fh          bool
	fhVal       int
	extras      int
	ghostExtras int
	ghostFault  string // op.ghostFault, for the per-kind tallies
	retry       int
	possibleDup bool
	near        bool
	unverified  bool
	idemRepeat  bool // IDEMPOTENT_REPEAT
	// acrossProcs: REPEAT_ACROSS_UPSTREAM_PROCESSES (outcome unknown).
	acrossProcs bool
}

func (op *operation) contrib() contrib {
	var c contrib
	if op.attempts-op.unknownTool <= 0 {
		return c
	}
	c.live = true
	e, u := op.executed, op.uncertain()
	switch {
	case op.idempotent:
		c.outcome = op.idempotentOutcome()
		c.idemRepeat = op.idempotentRepeat()
	case e+u >= 2 && op.acrossProcesses():
		c.outcome = OutcomeExecutionUnknown
		c.acrossProcs = true
	case e >= 2:
		c.outcome = OutcomeDuplicate
	case e+u >= 2:
		c.outcome = OutcomeExecutionUnknown
		c.possibleDup = true
	case e == 1:
		c.outcome = OutcomeExecuted
	case op.rejected == 1:
		c.outcome = OutcomeUpstreamRejected
	case u == 1:
		c.outcome = OutcomeExecutionUnknown
	default:
		c.outcome = OutcomeNotExecuted
	}
	c.judged = c.outcome != OutcomeExecutionUnknown
	dup := e >= 2 && !op.idempotent && !c.acrossProcs
	c.safe = c.judged && !dup
	if dup {
		c.extras = e - 1
		c.ghostExtras = min(op.ghostExtras, c.extras)
	}
	c.ghostFault = op.ghostFault
	c.retry = op.retryCount
	c.unverified = op.ghostOnly() && !op.verified
	c.near = op.near != nil
	if op.hadInjected && (c.judged || c.retry > 0) {
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
func (op *operation) idempotentOutcome() string {
	switch {
	case op.executed >= 1:
		return OutcomeExecuted
	case op.pending+op.unknown > 0:
		return OutcomeExecutionUnknown
	case op.rejected > 0:
		return OutcomeUpstreamRejected
	}
	return OutcomeNotExecuted
}

// idempotentRepeat reports whether an idempotent operation executed more
// than once, or executed and was also re-sent with an unknown outcome:
// IDEMPOTENT_REPEAT, no violation.
func (op *operation) idempotentRepeat() bool {
	return op.idempotent && op.executed >= 1 && op.executed+op.uncertain() >= 2
}

// ghostOnly reports whether the only execution is a ghost write (executed,
// agent saw an injected fault) that was never followed by another attempt.
func (op *operation) ghostOnly() bool {
	return op.executed == 1 && op.ghosts == 1 && op.uncertain() == 0 && !op.resent
}

// keyState is the state of one idempotency-key value of one tool.
type keyState struct {
	seq int
	// key is the value as shown (redacted with Config.RedactArguments).
	key, tool   string
	attempts    int
	executions  int
	existed     bool
	firstReads  int
	lastReads   int
	last        *attempt
	silent      bool
	dirty       bool
	inDirty     bool
	inSilentAll bool
}

// unclState counts calls of one unclassified tool with the same arguments.
type unclState struct {
	seq   int
	id    string
	tool  string
	count int
	dirty bool
}
