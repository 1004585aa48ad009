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

// IsBreak reports whether v is a known Options.Break value.
func IsBreak(v string) bool { return v == BreakNoDuplicates }

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

// feed returns what the pipeline feeds: the judge itself, or the broken
// judge around it.
func feed(jd *judge.Judge, brk string) pipeline.Judge {
	if brk == BreakNoDuplicates {
		return &uniqueOperations{Judge: jd}
	}
	return jd
}
