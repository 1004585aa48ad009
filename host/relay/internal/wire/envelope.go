package wire

import "strconv"

// Envelope is the top level of one JSON-RPC message. Every field is a raw
// sub-slice of the message (nil when the member is absent).
type Envelope struct {
	ID     []byte
	Method string // decoded method; "" when absent or not a string
	Params []byte
	Result []byte
	Error  []byte

	HasMethod bool
	// ResultStart is the offset of Result in the message.
	ResultStart int
	// Depth is the nesting depth of the whole message (1 for a flat
	// object).
	Depth int
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
		case m.KeyIs("id"):
			env.ID = m.Value
		case m.KeyIs("method"):
			env.HasMethod = true
			methodRaw = m.Value
		case m.KeyIs("params"):
			env.Params = m.Value
		case m.KeyIs("result"):
			env.Result = m.Value
			env.ResultStart = m.ValueStart
		case m.KeyIs("error"):
			env.Error = m.Value
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

// IDKey returns a comparable key for a raw JSON-RPC id, so that an id echoed
// in another spelling ("a" and "\u0061", -0 and 0) maps to the same key.
// Numbers other than int64 integers are keyed by their raw text.
func IDKey(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		if s, ok := Unquote(raw); ok {
			return "s" + s
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if n, err := strconv.ParseInt(string(raw), 10, 64); err == nil {
			return "n" + strconv.FormatInt(n, 10)
		}
	}
	return "x" + string(raw)
}
