package judge

import (
	"fmt"
	"sort"

	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/state"
)

// The backend's truth (behaviour §16): the state probe's snapshots, and
// per mapped write tool the effect — how much its counter changed from the
// before to the after snapshot. An effect is attributed to an operation
// only when that operation is the only one of its tool in the run; then
// contrib weighs it against the wire count (byBackend).

// Observation types of the state probe.
const (
	obsDeduplicatedByBackend = "DEDUPLICATED_BY_BACKEND"
	obsBackendDisagrees      = "BACKEND_DISAGREES"
)

// decidedBy values of operations[].decidedBy.
const (
	decidedWire    = "wire"
	decidedBackend = "backend"
)

// backendState is the judge's state of the probe.
type backendState struct {
	snaps []state.Snapshot
	// before and after are indexes+1 into snaps of the first snapshot
	// of each kind (0: none yet).
	before, after int
	// tools are the mapped tools' effects once the after snapshot came.
	tools map[string]*toolEffect
	// wire are the mapped tools' live operations and wire executions,
	// kept up to date by refresh (the state object is written with every
	// report file: no rescan of the operations).
	wire map[string]*toolWire
}

// toolWire is a mapped tool's wire counts.
type toolWire struct{ ops, executed int }

// move updates the mapped tool's wire counts from an operation's old
// contrib to its new one.
func (b *backendState) move(j *Judge, tool string, old, c contrib) {
	if _, mapped := j.cfg.State.Map[tool]; !mapped {
		return
	}
	if b.wire == nil {
		b.wire = map[string]*toolWire{}
	}
	w := b.wire[tool]
	if w == nil {
		w = &toolWire{}
		b.wire[tool] = w
	}
	if old.live {
		w.ops--
		w.executed -= old.executed
	}
	if c.live {
		w.ops++
		w.executed += c.executed
	}
}

// toolEffect is one mapped tool's effect, or why it has none.
type toolEffect struct {
	counter string
	effect  int64
	// err is why the effect is unknown ("" = known).
	err string
	// note is why a known effect was attributed to no operation.
	note string
}

// opEffect is an effect attributed to an operation.
type opEffect struct {
	e       int64
	counter string
	// inFlight: an attempt had no answer yet when the after snapshot was
	// taken (the session end's grace ran out); it may execute later, so
	// the effect can only make the operation a duplicate.
	inFlight bool
}

// backendOn reports whether the run has a state probe (or a re-judging
// gave a map): the report then has a state object and per operation
// effects. It depends on the configuration only, never on the events, so
// an operation's cached encoding never lacks the fields it should have.
func (j *Judge) backendOn() bool {
	return j.cfg.State.Command != "" || len(j.cfg.State.Map) > 0
}

// onState records a snapshot; the after snapshot attributes the effects.
func (j *Judge) onState(ev Event) {
	if ev.State == nil {
		return
	}
	b := &j.backend
	b.snaps = append(b.snaps, *ev.State)
	switch ev.State.At {
	case "before":
		if b.before == 0 {
			b.before = len(b.snaps)
		}
	case "after":
		if b.after == 0 {
			b.after = len(b.snaps)
			j.attribute()
		}
	}
}

// newOperation re-attributes after a new operation appeared once the
// effects were known (no writer does that: the after snapshot is taken
// once calls are refused; a hand-made event list may).
func (b *backendState) newOperation(j *Judge, op *operation) {
	if b.tools != nil {
		if _, mapped := j.cfg.State.Map[op.tool]; mapped {
			j.attribute()
		}
	}
}

// attribute computes each mapped tool's effect and gives it to the tool's
// operation when it is the only one (behaviour §16.3).
func (j *Judge) attribute() {
	b := &j.backend
	b.tools = map[string]*toolEffect{}
	var before, after state.Snapshot
	missing := ""
	switch {
	case b.before == 0:
		missing = "no snapshot was taken before the upstream started"
	default:
		before, after = b.snaps[b.before-1], b.snaps[b.after-1]
	}
	count := map[string][]*operation{}
	for _, op := range j.opSeq {
		count[op.tool] = append(count[op.tool], op)
	}
	for tool, counter := range j.cfg.State.Map {
		te := &toolEffect{counter: counter}
		b.tools[tool] = te
		if missing != "" {
			te.err = missing
		} else if e, err := state.Effect(before, after, counter); err != nil {
			te.err = err.Error()
		} else {
			te.effect = e
		}
		ops := count[tool]
		var eff *opEffect
		switch {
		case te.err != "":
		case j.tools.unknownWrite == tool || j.tools.unknown.has(tool):
			te.note = "the tool was called while the upstream did not list it, so not every execution is an attempt of an operation"
		case len(ops) == 0:
			te.note = "no write operation of the tool"
		case len(ops) > 1:
			te.note = fmt.Sprintf("%d write operations of the tool: the effect cannot be attributed to one", len(ops))
		default:
			eff = &opEffect{e: te.effect, counter: counter, inFlight: ops[0].n.pending > 0}
			if eff.inFlight {
				te.note = "an attempt was still in flight when the after snapshot was taken: only an effect of 2 or more counts"
			}
		}
		for _, op := range ops {
			op.eff = eff
			j.refresh(op)
		}
	}
}

func (s *nameSet) has(name string) bool {
	_, ok := s.idx[name]
	return ok
}

// byBackend weighs the operation's effect against the wire's outcome in c
// (behaviour §16.3). Only an effect of at least 2 can make an operation a
// duplicate; only an effect of exactly 1 can make a wire duplicate or an
// unknown outcome safe; anything the wire contradicts with certainty is
// BACKEND_DISAGREES and changes nothing.
func (op *operation) byBackend(c *contrib) {
	e, w, u := op.eff.e, op.n.executed, op.uncertain()
	switch {
	case e >= 2:
		if c.outcome != report.OperationDuplicate {
			c.outcome, c.decidedBy = report.OperationDuplicate, decidedBackend
			c.possibleDup, c.acrossProcs, c.idemRepeat = false, false, false
		}
	case op.eff.inFlight:
		// The attempt still in flight may add an execution after the
		// snapshot: no smaller effect clears or contradicts anything.
	case e < 0, e == 0 && w >= 1, e == 1 && w == 0 && u == 0:
		c.disagrees = true
	case c.acrossProcs:
		// Processes of their own may have backends of their own: one
		// counter cannot clear them; the wire judgement stands.
	case e == 1 && c.outcome == report.OperationDuplicate:
		c.outcome, c.decidedBy, c.deduplicated = report.OperationExecuted, decidedBackend, true
	case e == 1 && c.outcome == report.OperationExecutionUnknown:
		c.outcome, c.decidedBy, c.possibleDup = report.OperationExecuted, decidedBackend, false
	}
}

// executions is how often the operation executed as judged: the backend's
// effect when it decided a duplicate, else the wire count.
func (op *operation) executions() int {
	if op.c.decidedBy == decidedBackend && op.c.outcome == report.OperationDuplicate {
		return int(op.eff.e)
	}
	return op.n.executed
}

// backendObservations are DEDUPLICATED_BY_BACKEND and BACKEND_DISAGREES.
func (op *operation) backendObservations(add func(typ, msg string) *report.Observation) {
	switch {
	case op.c.deduplicated:
		add(obsDeduplicatedByBackend, fmt.Sprintf("The wire saw %d executions of this operation, but the state probe's counter %q rose by 1: the backend deduplicated the repeats, so there is no DUPLICATE_EXECUTION.",
			op.n.executed, op.eff.counter))
	case op.c.disagrees:
		add(obsBackendDisagrees, fmt.Sprintf("The state probe's counter %q changed by %d, but the wire saw %d execution(s) and %d attempt(s) with an uncertain outcome; the mapping or the probe may be wrong, so the wire judgement stands.",
			op.eff.counter, op.eff.e, op.n.executed, op.uncertain()))
	}
}

// backendMessage is the DUPLICATE_EXECUTION message of a duplicate the
// backend decided.
func (op *operation) backendMessage() string {
	return fmt.Sprintf("The state probe's counter %q rose by %d for this write operation: the backend executed it %d times, while the wire saw %d execution(s) and %d attempt(s) with an unknown outcome in %d attempt(s).",
		op.eff.counter, op.eff.e, op.eff.e, op.n.executed, op.uncertain(), op.n.attempts-op.n.unknownTool)
}

// stateInfo is the report file's state object; nil without a probe.
func (j *Judge) stateInfo() *report.StateInfo {
	if !j.backendOn() {
		return nil
	}
	b := &j.backend
	si := &report.StateInfo{Command: j.cfg.State.Command, Snapshots: make([]report.StateSnapshot, 0, len(b.snaps)), Tools: []report.StateTool{}}
	for _, s := range b.snaps {
		si.Snapshots = append(si.Snapshots, snapshotInfo(s))
	}
	if b.before > 0 {
		s := snapshotInfo(b.snaps[b.before-1])
		si.Before = &s
	}
	if b.after > 0 {
		s := snapshotInfo(b.snaps[b.after-1])
		si.After = &s
	}
	var errs []string
	for _, s := range b.snaps {
		if s.Error != "" {
			errs = append(errs, s.At+": "+s.Error)
		}
	}
	tools := make([]string, 0, len(j.cfg.State.Map))
	for t := range j.cfg.State.Map {
		tools = append(tools, t)
	}
	sort.Strings(tools)
	for _, t := range tools {
		st := report.StateTool{Tool: t, Counter: j.cfg.State.Map[t]}
		if w := b.wire[t]; w != nil {
			st.Operations, st.Executions = w.ops, w.executed
		}
		if te := b.tools[t]; te == nil {
			st.Error = "no snapshot after the session (yet)"
			errs = append(errs, fmt.Sprintf("%s: %s", t, st.Error))
		} else if te.err != "" {
			st.Error = te.err
			errs = append(errs, fmt.Sprintf("%s: %s", t, te.err))
		} else {
			e := te.effect
			st.Effects = &e
			st.Note = te.note
		}
		si.Tools = append(si.Tools, st)
	}
	if len(errs) > 0 {
		msg := errs[0]
		if len(errs) > 1 {
			msg += fmt.Sprintf(" (and %d more)", len(errs)-1)
		}
		si.Error = &msg
	}
	return si
}

func snapshotInfo(s state.Snapshot) report.StateSnapshot {
	return report.StateSnapshot{At: s.At, Time: s.Time, Counters: s.Counters, Invalid: s.Invalid, Error: s.Error}
}
