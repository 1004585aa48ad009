package trace

import (
	"fmt"
	"sync"

	"github.com/cuonztech/agent-harness/internal/jsonschema"
)

// The reader trusts no line (behaviour §7.2): each is checked against
// trace.schema.json and against what the writer guarantees, because a
// line the judge would silently ignore or merge (a reused call number, a
// second answer, an answer after the end) can turn a double execution
// into a PASS. A violation is an error naming the line and the rule.

// Rules of the writer that Read enforces, as the error messages name them.
const (
	ruleSchema       = "every line matches trace.schema.json"
	ruleCallOnce     = "each call number once"
	ruleAfterCall    = "forwarded, answer and delivered only after their call"
	ruleOnce         = "forwarded, answer and delivered at most once per call"
	ruleOrder        = "a call is forwarded before its answer, delivered after it"
	ruleHandoff      = "a delivered line with a fault comes after its call's forwarded line and before its answer"
	ruleNothingAfter = "nothing after end but plugin failures"
	ruleSession      = "a session opened before it is used, and once"
	ruleStateProbe   = "state lines only in a trace whose header has a stateCommand"
	ruleState        = "one before snapshot ahead of every call and every other snapshot, no new call, session, listing or snapshot after the after snapshot, a failed probe without counters"
)

var (
	schemaOnce sync.Once
	schemaV    *jsonschema.Validator
	schemaErr  error
)

// lineSchema is the validator of trace.schema.json, compiled once.
func lineSchema() (*jsonschema.Validator, error) {
	schemaOnce.Do(func() { schemaV, schemaErr = jsonschema.New(Schema) })
	return schemaV, schemaErr
}

// schemaDefs are the schema's definitions of each line type (the branches
// of its oneOf, chosen by type so that one branch is checked, not ten).
var schemaDefs = map[string]string{
	TypeHeader: "#/$defs/header", "call": "#/$defs/call", "forwarded": "#/$defs/forwarded",
	"answer": "#/$defs/answer", "delivered": "#/$defs/delivered", "tools": "#/$defs/tools",
	TypePluginFailure: "#/$defs/pluginFailure", "end": "#/$defs/end", "session": "#/$defs/sessionOpen",
	TypeStartupFailed: "#/$defs/startupFailed", "dropped-call": "#/$defs/droppedCall",
	TypeState: "#/$defs/state",
}

// checkSchema checks one line against the schema's definition of its type.
func checkSchema(raw []byte, typ string) error {
	v, err := lineSchema()
	if err != nil {
		return fmt.Errorf("trace schema: %w", err)
	}
	ref, ok := schemaDefs[typ]
	if !ok {
		return fmt.Errorf("unknown line type %q", typ)
	}
	if errs := v.ValidateValidRef(ref, raw); len(errs) > 0 { // decodeLine parsed it
		more := ""
		if len(errs) > 1 {
			more = fmt.Sprintf(" (and %d more problems)", len(errs)-1)
		}
		return fmt.Errorf("%s%s (rule: %s)", errs[0], more, ruleSchema)
	}
	return nil
}

// Per call, what its lines have said so far.
const (
	seenForwarded uint8 = 1 << iota
	seenAnswer
	seenDelivered
)

// invariants follows a trace line by line and refuses a line the writer
// cannot have written after the ones before it.
type invariants struct {
	calls map[int64]uint8
	ended bool
	// opened are the sessions opened by a session line; firstUse the
	// first session named before any was opened, at line firstUseLine.
	opened       map[Session]bool
	firstUse     Session
	firstUseLine int
	// called: a call line was read; before and after: those snapshots.
	called, before, after bool
	// probed: the header has a stateCommand (set once it is read).
	probed bool
}

func newInvariants() *invariants {
	return &invariants{calls: map[int64]uint8{}, opened: map[Session]bool{}}
}

// ruleError is a broken rule of the writer.
func ruleError(rule, format string, args ...any) error {
	return fmt.Errorf("%s (rule: %s)", fmt.Sprintf(format, args...), rule)
}

// check checks line n (1-based, the header is line 1).
func (c *invariants) check(n int, l *Line) error {
	if c.ended && l.Type != TypePluginFailure {
		// A plugin the final judging asks may fail after the end line
		// was written (pipeline.PluginFailed); nothing else may follow.
		return ruleError(ruleNothingAfter, "a line of type %q after the end line", l.Type)
	}
	if err := c.session(n, l); err != nil {
		return err
	}
	if err := c.state(l); err != nil {
		return err
	}
	switch l.Type {
	case "end":
		c.ended = true
	case "call":
		if _, dup := c.calls[l.Call]; dup {
			return ruleError(ruleCallOnce, "call %d already had its call line", l.Call)
		}
		c.calls[l.Call] = 0
	case "forwarded", "answer", "delivered":
		seen, ok := c.calls[l.Call]
		if !ok {
			return ruleError(ruleAfterCall, "%s line for call %d, which has no call line before it", l.Type, l.Call)
		}
		bit := seenForwarded
		switch l.Type {
		case "answer":
			bit = seenAnswer
		case "delivered":
			bit = seenDelivered
		}
		if seen&bit != 0 {
			return ruleError(ruleOnce, "a second %s line for call %d", l.Type, l.Call)
		}
		switch {
		case l.Type == "forwarded" && seen&seenAnswer != 0:
			return ruleError(ruleOrder, "call %d forwarded after its answer", l.Call)
		case l.Type == "delivered" && seen&seenAnswer == 0 && l.Fault == "":
			return ruleError(ruleOrder, "call %d delivered before its answer", l.Call)
		case l.Type == "delivered" && l.Fault != "" && seen&seenAnswer != 0:
			// A handoff (a fault handed over while the call's outcome was
			// not known) comes before the answer it stands in for.
			return ruleError(ruleHandoff, "call %d delivered with a fault after its answer", l.Call)
		case l.Type == "delivered" && l.Fault != "" && seen&seenForwarded == 0:
			return ruleError(ruleHandoff, "call %d delivered with a fault before it was forwarded", l.Call)
		}
		c.calls[l.Call] = seen | bit
	}
	return nil
}

// session checks the session a line names, and records a session line.
// A trace of an older writer names sessions it never opens; one that opens
// sessions must open each before its first use.
func (c *invariants) session(n int, l *Line) error {
	if l.Type == "session" {
		if c.opened[l.Session] {
			return ruleError(ruleSession, "session %q opened a second time", l.Session)
		}
		if c.firstUse != "" {
			return ruleError(ruleSession, "session %q was used at line %d before any session was opened", c.firstUse, c.firstUseLine)
		}
		c.opened[l.Session] = true
		return nil
	}
	if l.Session == "" || c.opened[l.Session] {
		return nil
	}
	if len(c.opened) > 0 {
		return ruleError(ruleSession, "session %q was never opened", l.Session)
	}
	if c.firstUse == "" {
		c.firstUse, c.firstUseLine = l.Session, n
	}
	return nil
}

// state checks the order of the state snapshots (behaviour §16): the
// before snapshot precedes every call and the other snapshots; after the
// after snapshot only the calls already in flight go on (forwarded,
// answer, delivered), then the end; each at most once. A snapshot is either counters or a failure: a
// judge given both could take a failed probe's stale numbers for effects.
func (c *invariants) state(l *Line) error {
	switch l.Type {
	case "call", "session", "tools", TypeState, "dropped-call":
		// Calls in flight when the grace ran out may still be forwarded
		// and answered; nothing new may start.
		if c.after {
			return ruleError(ruleState, "a line of type %q after the after snapshot", l.Type)
		}
	}
	switch l.Type {
	case "call":
		c.called = true
	case TypeState:
		// The proxy probes only with --state-command (behaviour §16.5): a
		// snapshot in a trace without one is not its writer's, and would
		// let a re-judge count a duplicate as deduplicated by the backend.
		if !c.probed {
			return ruleError(ruleStateProbe, "a %s snapshot, the header has no stateCommand", l.At)
		}
		if l.Detail != "" && (len(l.Counters) > 0 || len(l.Invalid) > 0) {
			return ruleError(ruleState, "a %s snapshot with both counters and a failure", l.At)
		}
		switch l.At {
		case "before":
			if c.before || c.called {
				return ruleError(ruleState, "a before snapshot after a call or another snapshot")
			}
		default:
			// The proxy takes its before snapshot before the upstream
			// starts, whether it succeeds or fails (pipeline.ProbeBefore).
			if !c.before {
				return ruleError(ruleState, "a %s snapshot without a before snapshot ahead of it", l.At)
			}
			if l.At == "after" {
				c.after = true
			}
		}
		c.before = true // a later before snapshot is out of order
	}
	return nil
}
