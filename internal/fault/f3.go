package fault

import "encoding/json"

// TruncatedJSON is F3: the first write is answered with the truncated body
// `{"` and is not forwarded.
type TruncatedJSON struct {
	first  firstWrite
	result json.RawMessage
}

// NewTruncatedJSON returns an armed F3.
func NewTruncatedJSON() *TruncatedJSON {
	return &TruncatedJSON{result: ErrorResult(TruncatedText)}
}

// Name returns "F3".
func (*TruncatedJSON) Name() string { return "F3" }

// Decide answers the first write with the truncated body; every other call
// passes.
func (f *TruncatedJSON) Decide(c Call) Action {
	if !f.first.claim(c, false) {
		return Action{}
	}
	return Action{Kind: Inject, Result: f.result, Scenario: "F3", Fault: KindTruncatedJSON}
}
