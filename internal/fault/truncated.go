package fault

import "encoding/json"

// nameTruncatedJSON is F3's --scenario name.
const nameTruncatedJSON = "F3"

func init() {
	register(Builtin{
		Name: nameTruncatedJSON, Kind: KindTruncatedJSON, Text: TruncatedText,
		FiresOn: "the first write that is not idempotent",
		Brief:   Brief{"first write", "a truncated JSON body ({\"), nothing executed", "the operation is then executed twice"},
		New:     func(Options) (Fault, error) { return NewTruncatedJSON(), nil },
	})
}

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
func (*TruncatedJSON) Name() string { return nameTruncatedJSON }

// Decide answers the first write with the truncated body; every other call
// passes.
func (f *TruncatedJSON) Decide(c Call) Action {
	if !f.first.claim(c, false) {
		return Action{}
	}
	return Action{Kind: Inject, Result: f.result, Scenario: nameTruncatedJSON, Fault: KindTruncatedJSON}
}
