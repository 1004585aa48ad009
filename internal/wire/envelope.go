package wire

// Envelope is the top level of one JSON-RPC message. Every field is a raw
// sub-slice of the message (nil when the member is absent).
type Envelope struct {
	ID     []byte
	Method string // decoded method; "" when absent or not a string
	Params []byte
	Result []byte
	Error  []byte

	HasMethod bool
	// IDStart is the offset of ID in the message.
	IDStart int
	// ResultStart is the offset of Result in the message.
	ResultStart int
	// ParamsStart is the offset of Params in the message.
	ParamsStart int
	// Depth is the nesting depth of the whole message (1 for a flat
	// object).
	Depth int

	// Variant is the first top-level member whose name is a case variant
	// of one of EnvelopeNames ("ID", "Method"; see Member.CaseVariant), as
	// sent; VariantOf is the name it folds to. Both "" when there is none.
	// A server that decodes names case-insensitively reads such a member
	// as that member, the relay does not.
	Variant, VariantOf string
}

// IsRequest reports whether the message is a request (method and id).
func (e *Envelope) IsRequest() bool { return e.HasMethod && e.ID != nil }

// IsNotification reports whether the message is a notification (method, no id).
func (e *Envelope) IsNotification() bool { return e.HasMethod && e.ID == nil }

// IsResponse reports whether the message is a response (no method, an id and
// a result or an error).
func (e *Envelope) IsResponse() bool {
	return !e.HasMethod && (e.Result != nil || e.Error != nil)
}

// ParseEnvelope validates msg as one JSON value and, when it is an object,
// returns its JSON-RPC members. A valid non-object (e.g. a batch array)
// yields ErrNotObject; invalid JSON a *SyntaxError.
func ParseEnvelope(msg []byte) (Envelope, error) {
	var env Envelope
	var methodRaw []byte
	i := skipSpace(msg, 0)
	if i < len(msg) && msg[i] != '{' {
		end, err := SkipValue(msg, i)
		if err != nil {
			return env, err
		}
		if skipSpace(msg, end) != len(msg) {
			return env, synErr(end, "data after the message")
		}
		return env, ErrNotObject
	}
	env.Depth = 1
	end, err := Members(msg, func(m Member) bool {
		env.Depth = max(env.Depth, 1+m.Depth)
		switch {
		case m.KeyIs("jsonrpc"):
		case m.KeyIs("id"):
			env.ID = m.Value
			env.IDStart = m.ValueStart
		case m.KeyIs("method"):
			env.HasMethod = true
			methodRaw = m.Value
		case m.KeyIs("params"):
			env.Params = m.Value
			env.ParamsStart = m.ValueStart
		case m.KeyIs("result"):
			env.Result = m.Value
			env.ResultStart = m.ValueStart
		case m.KeyIs("error"):
			env.Error = m.Value
		default:
			if env.Variant == "" {
				env.Variant, env.VariantOf, _ = m.CaseVariant(EnvelopeNames)
			}
		}
		return true
	})
	if err != nil {
		return env, err
	}
	if skipSpace(msg, end) != len(msg) {
		return env, synErr(end, "data after the message")
	}
	if env.HasMethod {
		env.Method, _ = Unquote(methodRaw)
	}
	return env, nil
}
