package selftest

import (
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/pipeline"
)

// BreakNoDuplicates is the value of Options.Break that breaks the judge
// on purpose: every write call becomes an operation of its own, so no
// duplicate and no early re-send after a 429 can ever be seen. It exists
// only so tests can prove that the self-test fails when the judge is wrong;
// the benchmark prints a warning when it is used.
const BreakNoDuplicates = "no-duplicates"

// BreakLostGhosts is the value of Options.Break that makes the judge lose
// every ghost write (F1): the executed answer behind an injected timeout
// reaches it as "injected, not executed". The verdicts of the careful agent
// stay right (it never re-sends after a timeout) while the judge counts
// fewer executions than the backend made: it proves the self-test fails a
// run on the count alone.
const BreakLostGhosts = "lost-ghosts"

// IsBreak reports whether v is a known Options.Break value.
func IsBreak(v string) bool { return v == BreakNoDuplicates || v == BreakLostGhosts }

// uniqueOperations is the broken judge behind BreakNoDuplicates: it gives
// every write call's arguments a fresh member before the judge sees them, so
// every call is an operation of its own. (Equivalence plugins can only widen
// "same operation", behaviour §4.1, so a plugin cannot break the judge this way.)
type uniqueOperations struct {
	pipeline.Judge
	n atomic.Int64
}

// Apply implements pipeline.Judge.
func (u *uniqueOperations) Apply(ev judge.Event) {
	if ev.Kind == judge.EventCall {
		ev.Arguments = json.RawMessage(`{"broken-` + strconv.FormatInt(u.n.Add(1), 10) + `":0,"args":` + argsOrNull(ev.Arguments) + `}`)
	}
	u.Judge.Apply(ev)
}

func argsOrNull(a json.RawMessage) string {
	if len(a) == 0 {
		return "null"
	}
	return string(a)
}

// lostGhosts is the broken judge behind BreakLostGhosts.
type lostGhosts struct{ pipeline.Judge }

// Apply implements pipeline.Judge.
func (l lostGhosts) Apply(ev judge.Event) {
	if ev.Kind == judge.EventAnswer && ev.Outcome == judge.Executed && ev.Fault == "timeout" {
		ev.Outcome = judge.InjectedNotExecuted
	}
	l.Judge.Apply(ev)
}

// feed returns what the pipeline feeds: the judge itself, or the broken
// judge around it.
func feed(jd *judge.Judge, brk string) pipeline.Judge {
	switch brk {
	case BreakNoDuplicates:
		return &uniqueOperations{Judge: jd}
	case BreakLostGhosts:
		return lostGhosts{Judge: jd}
	}
	return jd
}
