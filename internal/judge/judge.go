package judge

import (
	"slices"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Judge consumes the events of one session and keeps its verdict, score,
// report and patches up to date. Every method is safe for concurrent use.
//
// # Notes
//
//   - Apply is O(1) amortised in the length of the session: state lives in
//     maps keyed by operation key and call id, and totals are running
//     counters. The only per-call work that grows is the comparison of a
//     write with the uncertain attempts of the same tool (behaviour §4.6), which
//     are few.
//   - Report, Markdown and AppendFile are linear in the size of the report;
//     AppendFile re-encodes only operations that changed since its last call.
type Judge struct {
	mu  sync.Mutex
	cfg Config

	seq uint64 // events applied

	// start is when the run started (Config.Start, else the first
	// event's time); started is set once it is known.
	start   time.Time
	started bool

	index opIndex
	opSeq []*operation // in order of first attempt
	calls map[int64]*pendingCall

	cov   coverageCounts
	tools toolNames
	sess  sessionSet
	ident identityProblems

	tot   totals
	lists [numCategories]opList

	awaiting  []*operation            // ghost / not-executed ops waiting for a read
	cands     map[string][]*operation // per tool: ops with uncertain attempts
	rateWaits rateWaits               // per tool: ops waiting out a 429

	keys keyBook
	uncl unclBook

	// faults are the plugin failures no plugin host saw (pluginFault).
	faults []report.PluginFailure

	dirty dirtyLists
	enc   fileCache // the report-file encodings

	// Violations as they appeared (alerts.go).
	alerts alerter

	// backend is the state probe's snapshots and effects (backend.go).
	backend backendState
}

// opIndex finds an operation by its built-in key or an alias (behaviour
// §4.1): a plugin's key, or a built-in key a plugin joined to it.
type opIndex struct {
	ops   map[string]*operation
	alias map[string]*operation
	// aliasBy is the rule that made each alias of a built-in key
	// (attemptLog[].joinedBy); nil entries for the rest.
	aliasBy map[string]*report.RuleInfo
}

// lookup returns the operation registered under key k (an operation's own
// key or an alias), or nil.
func (x *opIndex) lookup(k string) *operation {
	if op := x.alias[k]; op != nil {
		return op
	}
	return x.ops[k]
}

// coverageCounts are the session's call counts (report.coverage) and the
// facts the verdict's first reasons read.
type coverageCounts struct {
	calls      int
	byClass    report.CallCounts
	idemWrites int // write calls of idempotent tools
	readCalls  int
	readsOK    int // read calls answered without an error
	inFlight   int
	injected   int // answers carrying an injected fault
	// scenarioFired: an answer carried the scenario; ended: EventEnd came.
	scenarioFired, ended bool
	// dropped counts tools/call notifications (no id) the proxy did
	// not forward; droppedTool is the first one's tool.
	dropped     int
	droppedTool string
}

// toolNames are the unclassified tools and the tools the upstream did not
// list that the agent called.
type toolNames struct {
	uncl, unknown nameSet
	// unknownWrite is the first tool called while unlisted that a later
	// listing showed to be a write ("" when none).
	unknownWrite string
}

// identityProblems count write calls whose operation identity is not
// certain (behaviour §4.1), with the first one's tool (and member names).
type identityProblems struct {
	unidentified     int
	unidentifiedTool string
	caseClashes      int
	caseClashTool    string
	caseClashNames   [2]string
}

// note counts a write call whose identity id is not certain: arguments
// that are not valid JSON, or member names that differ only in letter
// case. Either keeps the run from passing.
func (p *identityProblems) note(tool string, id identity) {
	if id.unidentified {
		if p.unidentified == 0 {
			p.unidentifiedTool = tool
		}
		p.unidentified++
	}
	if id.caseClash[0] != "" {
		if p.caseClashes == 0 {
			p.caseClashTool, p.caseClashNames = tool, id.caseClash
		}
		p.caseClashes++
	}
}

// unclBook counts the repeats of unclassified calls (UNCLASSIFIED_REPEAT).
type unclBook struct {
	byArgs map[string]*unclState
	seq    []*unclState // those called at least twice
}

// dirtyLists are the operations and keys changed since the last AppendFile.
type dirtyLists struct {
	ops  []*operation
	keys []*keyState
}

// totals are the running sums of every operation's contrib.
type totals struct {
	ops        int
	outcomes   map[report.OperationOutcome]int
	judged     int
	safe       int
	fhCount    int
	fhSum      int
	extras     int
	ghostExtra int
	// clientExtras and clientGhost are the extras and ghost extras of
	// operations the client library re-sent (CLIENT_RETRY, not the
	// prompt patches).
	clientExtras, clientGhost int
	retry                     int
	idemRepeat                int // operations with IDEMPOTENT_REPEAT
	// ghostKinds counts ghost extras, unverifiedKinds unverified ghost
	// writes, per fault kind of the ghost write (for the patch triggers).
	ghostKinds, unverifiedKinds faultTally
}

// nameSet is an insertion-ordered set of tool names.
type nameSet struct {
	idx   map[string]struct{}
	names []string
}

func (s *nameSet) add(name string) bool {
	if _, ok := s.idx[name]; ok {
		return false
	}
	if s.idx == nil {
		s.idx = map[string]struct{}{}
	}
	s.idx[name] = struct{}{}
	s.names = append(s.names, name)
	return true
}

// New returns a Judge for one session.
func New(cfg Config) *Judge {
	cfg.Equivalences = slices.Clone(cfg.Equivalences)
	cfg.PairCheckers = slices.Clone(cfg.PairCheckers)
	return &Judge{
		cfg:   cfg,
		start: cfg.Start,
		index: opIndex{
			ops:     map[string]*operation{},
			alias:   map[string]*operation{},
			aliasBy: map[string]*report.RuleInfo{},
		},
		calls:     map[int64]*pendingCall{},
		cands:     map[string][]*operation{},
		rateWaits: rateWaits{},
		keys:      keyBook{byValue: map[string]*keyState{}, silentTool: map[string][]*keyState{}},
		uncl:      unclBook{byArgs: map[string]*unclState{}},
		tot:       totals{outcomes: map[report.OperationOutcome]int{}},
	}
}

// Replay judges a recorded event list offline. The result is identical to
// applying the same events to a live Judge one by one.
func Replay(cfg Config, events []Event) *Judge {
	j := New(cfg)
	for _, ev := range events {
		j.Apply(ev)
	}
	return j
}

// Apply adds one event. Events with an unknown or repeated call id, answers
// for calls already answered and other inconsistent input are ignored; Apply
// never panics on any event sequence.
func (j *Judge) Apply(ev Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.seq++
	if !j.started {
		j.started = true
		if j.start.IsZero() {
			j.start = ev.Time
		}
	}
	switch ev.Kind {
	case EventCall:
		j.onCall(ev)
	case EventForwarded:
		// Forwarding changes nothing the judge reports: an unanswered call
		// counts as in flight (uncertain) whether or not it was forwarded.
	case EventAnswer:
		j.onAnswer(ev)
	case EventEnd:
		j.onEnd(ev)
	case EventDelivered:
		j.onDelivered(ev)
	case EventTools:
		j.onTools(ev)
	case EventSession:
		j.onSession(ev)
	case EventState:
		j.onState(ev)
	case EventDroppedCall:
		j.cov.dropped++
		if j.cov.dropped == 1 {
			j.cov.droppedTool = ev.Tool
		}
	}
}

// refresh recomputes op's contrib and moves the totals and category lists
// by the difference. Every change to an operation ends with refresh.
func (j *Judge) refresh(op *operation) {
	old, c := op.c, op.contrib()
	op.c = c
	t := &j.tot
	if old.live {
		t.ops--
		t.outcomes[old.outcome]--
		t.judged -= b2i(old.judged)
		t.safe -= b2i(old.safe)
		if old.fh {
			t.fhCount--
			t.fhSum -= old.fhVal
		}
		t.extras -= old.extras
		t.ghostExtra -= old.ghostExtras
		t.clientExtras -= b2i(old.client) * old.extras
		t.clientGhost -= b2i(old.client) * old.ghostExtras
		t.retry -= old.retry
		t.idemRepeat -= b2i(old.idemRepeat)
	}
	if c.live {
		t.ops++
		t.outcomes[c.outcome]++
		t.judged += b2i(c.judged)
		t.safe += b2i(c.safe)
		if c.fh {
			t.fhCount++
			t.fhSum += c.fhVal
		}
		t.extras += c.extras
		t.ghostExtra += c.ghostExtras
		t.clientExtras += b2i(c.client) * c.extras
		t.clientGhost += b2i(c.client) * c.ghostExtras
		t.retry += c.retry
		t.idemRepeat += b2i(c.idemRepeat)
	}
	t.ghostKinds.move(old.ghostFault, old.promptGhost(), c.ghostFault, c.promptGhost())
	t.unverifiedKinds.move(old.ghostFault, b2i(old.unverified && old.live), c.ghostFault, b2i(c.unverified && c.live))
	j.lists[catDuplicate].set(catDuplicate, op, c.extras > 0)
	j.lists[catRetryAfter].set(catRetryAfter, op, c.retry > 0)
	j.lists[catGhostExtra].set(catGhostExtra, op, c.promptGhost() > 0)
	j.lists[catIdemExtra].set(catIdemExtra, op, c.promptIdem() > 0)
	j.lists[catClientRetry].set(catClientRetry, op, c.client)
	j.lists[catPossibleDup].set(catPossibleDup, op, c.possibleDup)
	j.lists[catNearDup].set(catNearDup, op, c.near)
	j.lists[catUnverified].set(catUnverified, op, c.unverified && c.live)
	j.lists[catAcrossProcs].set(catAcrossProcs, op, c.acrossProcs)
	j.backend.move(j, op.tool, old, c)
	if c.extras > 0 || c.retry > 0 || c.deduplicated {
		j.alerts.note(op, c)
	}
	j.markDirty(op)
}

func (j *Judge) markDirty(op *operation) { j.dirty.op(op) }

func (j *Judge) markKeyDirty(k *keyState) { j.dirty.key(k) }

// op marks op to be encoded again.
func (d *dirtyLists) op(op *operation) {
	op.dirty = true
	if !op.inDirty {
		op.inDirty = true
		d.ops = append(d.ops, op)
	}
}

// key marks k to be encoded again.
func (d *dirtyLists) key(k *keyState) {
	k.dirty = true
	if !k.inDirty {
		k.inDirty = true
		d.keys = append(d.keys, k)
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// classOf maps a call's class to the four counted classes; anything that is
// not read, write or unclassified counts as unknown.
func classOf(c classify.Class) classify.Class {
	switch c {
	case classify.Read, classify.Write, classify.Unclassified:
		return c
	}
	return classify.Unknown
}
