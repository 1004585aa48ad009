package wire

// IDKey returns a comparable key for a raw JSON-RPC id, so that an id echoed
// in another spelling maps to the same key: strings by their unescaped
// value ("a" and "\u0061"), numbers by their exact decimal value (2, 2.0,
// 2e0, 20e-1 and 0.2e1 are one key; -0 and 0 are one key; 2 and 2.5, and
// 2^53 and 2^53+1, are not). Numbers never go through float64, and a huge
// exponent costs no more memory than its own digits. Other values are keyed
// by their raw text.
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
		if IsNumber(raw) {
			// Operation identity's exact canonical form (AppendNumber),
			// built in a stack buffer for the usual short id.
			var buf [48]byte
			return string(AppendNumber(append(buf[:0], 'n'), raw))
		}
	}
	return "x" + string(raw)
}
