package fault

import "encoding/json"

// nameServerError is F5's --scenario name.
const nameServerError = "F5"

func init() {
	register(Builtin{
		Name: nameServerError, Kind: KindServerError, Text: ServerErrorText,
		FiresOn: "the first write that is not idempotent",
		Brief:   Brief{"first write", "HTTP 500, nothing executed; the next attempt succeeds", "the operation is then executed twice"},
		New:     func(Options) (Fault, error) { return NewServerError(), nil },
	})
}

// ServerError is F5: the first write is answered with HTTP 500 and is not
// forwarded; the next attempt reaches the upstream.
type ServerError struct {
	first  firstWrite
	result json.RawMessage
}

// NewServerError returns an armed F5.
func NewServerError() *ServerError {
	return &ServerError{result: ErrorResult(ServerErrorText)}
}

// Name returns "F5".
func (*ServerError) Name() string { return nameServerError }

// Decide answers the first write with the 500; every other call passes.
func (f *ServerError) Decide(c Call) Action {
	if !f.first.claim(c, false) {
		return Action{}
	}
	return Action{Kind: Inject, Result: f.result, Scenario: nameServerError, Fault: KindServerError}
}
