package judge

import (
	"encoding/json"
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
	// pluginErr is why the state plugins attributed nothing ("" = they
	// did, or there are none); pluginNotes are attributions refused for a
	// tool whose counter contradicts them.
	pluginErr   string
	pluginNotes []string
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
	// plugin is the state plugin that attributed the effect ("" = the
	// counter of a tool with one operation).
	plugin string
}

// what names where the effect comes from, for the live lines.
func (e *opEffect) what() string {
	if e.plugin != "" {
		return fmt.Sprintf("effect attributed by state plugin %q", e.plugin)
	}
	return fmt.Sprintf("state probe counter %q", e.counter)
}

// whatThe is what() starting a sentence of the report.
func (e *opEffect) whatThe() string {
	if e.plugin != "" {
		return fmt.Sprintf("The effect attributed by state plugin %q", e.plugin)
	}
	return fmt.Sprintf("The state probe's counter %q", e.counter)
}

// backendOn reports whether the run has a state probe (or a re-judging
// gave a map): the report then has a state object and per operation
// effects. It depends on the configuration only, never on the events, so
// an operation's cached encoding never lacks the fields it should have.
func (j *Judge) backendOn() bool {
	return j.cfg.State.Command != "" || len(j.cfg.State.Map) > 0 || len(j.cfg.State.Plugins) > 0
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
// operation when it is the only one, and asks the state plugins for the
// effects of every operation (behaviour §16.3, §16.4). A plugin's number
// goes through the same rules as a counter's (byBackend).
func (j *Judge) attribute() {
	b := &j.backend
	b.tools = map[string]*toolEffect{}
	b.pluginErr, b.pluginNotes = "", nil
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
	byPlugin := j.pluginEffects(missing, before, after)
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
		switch {
		case te.err != "":
		case j.tools.unknownWrite == tool || j.tools.unknown.has(tool):
			te.note = "the tool was called while the upstream did not list it, so not every execution is an attempt of an operation"
		case len(ops) == 0:
			te.note = "no write operation of the tool"
		case len(ops) > 1 && byPlugin != nil && pluginCovers(byPlugin, ops):
			if sum := pluginSum(byPlugin, ops); sum != te.effect {
				te.note = fmt.Sprintf("the state plugins attributed %d in all to the tool's %d operations, but its counter rose by %d: the attribution is refused, the wire judgement stands", sum, len(ops), te.effect)
				b.pluginNotes = append(b.pluginNotes, tool+": "+te.note)
				for _, op := range ops {
					delete(byPlugin, op.id)
				}
			} else {
				te.note = fmt.Sprintf("%d write operations of the tool: attributed by the state plugins", len(ops))
			}
		case len(ops) > 1:
			te.note = fmt.Sprintf("%d write operations of the tool: the effect cannot be attributed to one", len(ops))
		case b.pluginErr != "":
			te.note = "the state plugins failed: no effect for any operation"
		default:
			if _, ok := byPlugin[ops[0].id]; !ok {
				byPlugin = withEffect(byPlugin, ops[0].id, &opEffect{e: te.effect, counter: counter})
			}
			if ops[0].n.pending > 0 {
				te.note = "an attempt was still in flight when the after snapshot was taken: only an effect of 2 or more counts"
			}
		}
	}
	for _, op := range j.opSeq {
		eff := byPlugin[op.id]
		if eff != nil && (j.tools.unknownWrite == op.tool || j.tools.unknown.has(op.tool)) {
			eff = nil // as for a counter: not every execution is an attempt
		}
		if eff != nil {
			eff.inFlight = op.n.pending > 0
		}
		if op.eff != nil || eff != nil {
			op.eff = eff
			j.refresh(op)
		}
	}
}

func withEffect(m map[string]*opEffect, id string, e *opEffect) map[string]*opEffect {
	if m == nil {
		m = map[string]*opEffect{}
	}
	m[id] = e
	return m
}

// pluginCovers reports whether the plugins attributed a number to each of
// ops.
func pluginCovers(m map[string]*opEffect, ops []*operation) bool {
	for _, op := range ops {
		if e := m[op.id]; e == nil || e.plugin == "" {
			return false
		}
	}
	return true
}

func pluginSum(m map[string]*opEffect, ops []*operation) int64 {
	var sum int64
	for _, op := range ops {
		sum += m[op.id].e
	}
	return sum
}

// pluginEffects asks the state plugins (in order) for the effects of every
// write operation: the first number an operation is given is its effect.
// Without both snapshots nothing is asked. A plugin that fails, or whose
// answer is not one entry per operation asked, leaves every operation to
// the wire: the result is nil, the reason is in b.pluginErr (the state
// object's error) and, for the host's failures, on stderr and in
// pluginFailures.
func (j *Judge) pluginEffects(missing string, before, after state.Snapshot) map[string]*opEffect {
	b := &j.backend
	if len(j.cfg.State.Plugins) == 0 || len(j.opSeq) == 0 {
		return nil
	}
	switch {
	case missing != "":
		b.pluginErr = "state plugins: " + missing
		return nil
	case before.Error != "" || after.Error != "":
		b.pluginErr = "state plugins: not asked, the probe failed"
		return nil
	}
	in := StateInput{Before: before, After: after, Operations: make([]StateOperation, 0, len(j.opSeq))}
	for _, op := range j.opSeq {
		args := op.args
		if len(args) == 0 {
			args = json.RawMessage("{}")
		}
		in.Operations = append(in.Operations, StateOperation{ID: op.id, Tool: op.tool, Arguments: args,
			Executions: op.n.executed, Unknown: op.uncertain()})
	}
	out := map[string]*opEffect{}
	for i, p := range j.cfg.State.Plugins {
		name := pluginName(p, fmt.Sprintf("state plugin %d", i+1))
		effects, err := callState(p, in)
		if err == nil {
			err = CheckEffects(in, effects)
			if err != nil {
				err = pluginFault("state: " + err.Error())
			}
		}
		if err != nil {
			j.noteFault(err, func() string { return name }, func() string { return err.Error() })
			b.pluginErr = fmt.Sprintf("state plugin %s failed, the wire judgement stands for every operation: %v", name, err)
			return nil
		}
		for _, op := range in.Operations {
			if e := effects[op.ID]; e != nil && out[op.ID] == nil {
				out[op.ID] = &opEffect{e: *e, counter: j.cfg.State.Map[op.Tool], plugin: name}
			}
		}
	}
	return out
}

// callState calls a state hook, turning a panic into a pluginFault.
func callState(p StateAttributor, in StateInput) (out map[string]*int64, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, pluginFault(fmt.Sprintf("state: panic: %v", r))
		}
	}()
	return p.Attribute(in)
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
		add(obsDeduplicatedByBackend, fmt.Sprintf("The wire saw %d executions of this operation, but %s rose by 1: the backend deduplicated the repeats, so there is no DUPLICATE_EXECUTION.",
			op.n.executed, lowerFirst(op.eff.whatThe())))
	case op.c.disagrees:
		add(obsBackendDisagrees, fmt.Sprintf("%s changed by %d, but the wire saw %d execution(s) and %d attempt(s) with an uncertain outcome; the mapping or the probe may be wrong, so the wire judgement stands.",
			op.eff.whatThe(), op.eff.e, op.n.executed, op.uncertain()))
	}
}

// backendMessage is the DUPLICATE_EXECUTION message of a duplicate the
// backend decided.
func (op *operation) backendMessage() string {
	return fmt.Sprintf("%s rose by %d for this write operation: the backend executed it %d times, while the wire saw %d execution(s) and %d attempt(s) with an unknown outcome in %d attempt(s).",
		op.eff.whatThe(), op.eff.e, op.eff.e, op.n.executed, op.uncertain(), op.n.attempts-op.n.unknownTool)
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
	switch {
	case b.pluginErr != "":
		errs = append(errs, b.pluginErr)
	case len(j.cfg.State.Plugins) > 0 && b.after == 0:
		errs = append(errs, "state plugins: no snapshot after the session (yet)")
	}
	errs = append(errs, b.pluginNotes...)
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

// lowerFirst lower-cases the first letter (whatThe inside a sentence).
func lowerFirst(s string) string {
	if s != "" && s[0] >= 'A' && s[0] <= 'Z' {
		return string(s[0]+'a'-'A') + s[1:]
	}
	return s
}
