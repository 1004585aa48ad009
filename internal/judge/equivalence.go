package judge

import "encoding/json"

// Equivalence gives the operation key of a write call. Calls with the same
// tool and the same key are the same operation. ok is false when the
// implementation has no opinion about this call; the next one in the chain
// decides. The key only widens sameness: calls with the same built-in
// canonical key (key fields stripped, canonical JSON, exact numbers — behaviour
// §4.1) are the same operation whatever the plugin says.
//
// Implementations must be safe for concurrent use.
type Equivalence interface {
	Key(tool string, arguments json.RawMessage) (key string, ok bool, err error)
}

// Sameness is a pair check's answer.
type Sameness int

const (
	// Different: not the same operation (or no opinion).
	Different Sameness = iota
	// Same: the same business operation; a double execution is a
	// DUPLICATE_EXECUTION.
	Same
	// Possible: maybe the same; the run becomes NOT_TESTED with
	// POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS (behaviour §4.6).
	Possible
)

// PairChecker compares a later write call with an earlier attempt of the
// same tool whose outcome was uncertain (timeout, unknown, in flight). It is
// only asked about such candidates, never about every pair of the session.
type PairChecker interface {
	Compare(tool string, earlier, later json.RawMessage) (s Sameness, reason string, err error)
}
