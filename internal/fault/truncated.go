package fault

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
type TruncatedJSON struct{ injectFirst }

// NewTruncatedJSON returns an armed F3.
func NewTruncatedJSON() *TruncatedJSON {
	return &TruncatedJSON{injectFirst{name: nameTruncatedJSON, kind: KindTruncatedJSON, result: ErrorResult(TruncatedText)}}
}
