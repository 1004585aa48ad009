package selftest

import (
	"encoding/json"
	"strconv"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/builtin/judge"
)

// BreakNoDuplicates is the value of Options.Break that breaks the judge
// on purpose: every write call becomes an operation of its own, so no
// duplicate and no early re-send after a 429 can ever be seen. It exists
// only so tests can prove that the self-test fails when the judge is wrong;
// the benchmark prints a warning when it is used.
const BreakNoDuplicates = "no-duplicates"

// IsBreak reports whether v is a known Options.Break value.
func IsBreak(v string) bool { return v == BreakNoDuplicates }

// uniqueOperations is the broken equivalence behind BreakNoDuplicates: it
// gives every call a fresh operation key. It plugs into the judge through
// the same extension point as an equivalence plugin.
type uniqueOperations struct{ n atomic.Int64 }

// Key implements judge.Equivalence.
func (u *uniqueOperations) Key(string, json.RawMessage) (string, bool, error) {
	return "broken-" + strconv.FormatInt(u.n.Add(1), 10), true, nil
}

// judgeConfig returns the judge configuration of one run.
func judgeConfig(scenario, brk string) judge.Config {
	cfg := judge.Config{Scenario: scenario, Kind: "proxy"}
	if brk == BreakNoDuplicates {
		cfg.Equivalences = []judge.Equivalence{&uniqueOperations{}}
	}
	return cfg
}
