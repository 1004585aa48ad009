package fault

import "encoding/json"

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
func (*ServerError) Name() string { return "F5" }

// Decide answers the first write with the 500; every other call passes.
func (f *ServerError) Decide(c Call) Action {
	if !f.first.claim(c, false) {
		return Action{}
	}
	return Action{Kind: Inject, Result: f.result, Scenario: "F5", Fault: KindServerError}
}
