package fault

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
type ServerError struct{ injectFirst }

// NewServerError returns an armed F5.
func NewServerError() *ServerError {
	return &ServerError{injectFirst{name: nameServerError, kind: KindServerError, result: ErrorResult(ServerErrorText)}}
}
