package pipeline

import (
	"encoding/json"
	"strings"
)

// maxNestingDepth is encoding/json's limit on nested arrays and objects;
// deeper input is invalid for it, and so here.
const maxNestingDepth = 10000

// resultScan is what scanResult reads from a raw CallToolResult.
type resultScan struct {
	// isError: the result has "isError": true.
	isError bool
	// resultType is the raw JSON value of the top-level resultType member
	// (MCP 2026-07-28), nil when there is none.
	resultType []byte
}

// scanResult reads a raw CallToolResult's top-level isError and resultType
// members; ok is false when result is not a JSON object. Any isError value
// but true (absent, false, not a boolean) is not an error, as for MCP
// clients.
//
// It gives exactly the answer of json.Unmarshal into a struct with
// `isError` and `resultType` json.RawMessage fields (tested against that
// by FuzzIsErrorResult), in one pass without allocating: the whole input
// is validated as encoding/json does (any syntax error, or nesting deeper
// than 10,000 levels, is not an object), only top-level members are
// compared with the two names, member names match as encoding/json matches
// field names (escapes decoded, case-insensitively with Unicode simple
// folding), and the last matching member decides.
func scanResult(result []byte) (s resultScan, ok bool) {
	b := result
	i := skipSpace(b, 0)
	if i == len(b) || b[i] != '{' {
		return resultScan{}, false
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		i++
	} else {
		for {
			start := i
			var plain bool
			if i, plain, ok = skipMemberName(b, i); !ok {
				return resultScan{}, false
			}
			name := b[start:i]
			isErr, resType := memberOf(name, plain)
			i = skipSpace(b, i)
			if i == len(b) || b[i] != ':' {
				return resultScan{}, false
			}
			i = skipSpace(b, i+1)
			vstart := i
			if i, ok = skipValue(b, i, 1); !ok {
				return resultScan{}, false
			}
			switch {
			case isErr:
				s.isError = string(b[vstart:i]) == "true"
			case resType:
				s.resultType = b[vstart:i]
			}
			i = skipSpace(b, i)
			if i == len(b) {
				return resultScan{}, false
			}
			if b[i] == '}' {
				i++
				break
			}
			if b[i] != ',' {
				return resultScan{}, false
			}
			i = skipSpace(b, i+1)
		}
	}
	if skipSpace(b, i) != len(b) {
		return resultScan{}, false
	}
	return s, true
}

// memberOf reports whether a member name (quoted, valid JSON string)
// selects the isError or the resultType field for encoding/json. plain
// names (ASCII, no escapes) are compared directly; others are decoded by
// encoding/json itself and folded as it folds field names.
func memberOf(quoted []byte, plain bool) (isError, resultType bool) {
	const e, r = "isError", "resultType"
	if plain {
		n := quoted[1 : len(quoted)-1]
		return len(n) == len(e) && asciiEqualFold(n, e), len(n) == len(r) && asciiEqualFold(n, r)
	}
	var s string
	if json.Unmarshal(quoted, &s) != nil {
		return false, false // unreachable: quoted was validated
	}
	return strings.EqualFold(s, e), strings.EqualFold(s, r)
}

// asciiEqualFold compares ASCII b with ASCII s, ignoring letter case.
func asciiEqualFold(b []byte, s string) bool {
	for k := range len(b) {
		x, y := b[k], s[k]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}

// skipSpace returns the index of the first byte at or after i that is not
// JSON white space.
func skipSpace(b []byte, i int) int {
	for i < len(b) {
		switch b[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// skipMemberName validates the string at b[i] and returns the index after
// it; plain says that it is ASCII without escapes.
func skipMemberName(b []byte, i int) (end int, plain, ok bool) {
	if i == len(b) || b[i] != '"' {
		return i, false, false
	}
	plain = true
	for i++; i < len(b); i++ {
		switch c := b[i]; {
		case c == '"':
			return i + 1, plain, true
		case c == '\\':
			plain = false
			if i, ok = skipEscape(b, i); !ok {
				return i, false, false
			}
		case c < 0x20:
			return i, false, false
		case c >= 0x80:
			plain = false
		}
	}
	return i, false, false
}

// skipString validates the string at b[i] and returns the index after it.
// Bytes that are not valid UTF-8 are accepted, as encoding/json accepts
// them.
func skipString(b []byte, i int) (int, bool) {
	for i++; i < len(b); i++ {
		c := b[i]
		if c == '"' {
			return i + 1, true
		}
		if c == '\\' {
			var ok bool
			if i, ok = skipEscape(b, i); !ok {
				return i, false
			}
		} else if c < 0x20 {
			return i, false
		}
	}
	return i, false
}

// skipEscape validates the escape sequence at b[i] (a backslash) and
// returns the index of its last byte.
func skipEscape(b []byte, i int) (int, bool) {
	if i+1 >= len(b) {
		return i, false
	}
	switch b[i+1] {
	case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
		return i + 1, true
	case 'u':
		if i+5 >= len(b) {
			return i, false
		}
		for _, h := range b[i+2 : i+6] {
			if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
				return i, false
			}
		}
		return i + 5, true
	}
	return i, false
}

// skipNumber validates the number at b[i] and returns the index after it:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func skipNumber(b []byte, i int) (int, bool) {
	if b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && '1' <= b[i] && b[i] <= '9':
		i = skipDigits(b, i)
	default:
		return i, false
	}
	if i < len(b) && b[i] == '.' {
		if i++; i == len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = skipDigits(b, i)
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i == len(b) || !isDigit(b[i]) {
			return i, false
		}
		i = skipDigits(b, i)
	}
	return i, true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

func skipDigits(b []byte, i int) int {
	for i < len(b) && isDigit(b[i]) {
		i++
	}
	return i
}

// skipValue validates the JSON value at b[i], nested depth containers
// deep, and returns the index after it. It is iterative: nesting costs one
// byte of stack per level, never a call frame.
func skipValue(b []byte, i, depth int) (int, bool) {
	var arr [64]byte
	open := arr[:0] // '{' or '[' of each container opened here
	var ok bool
	for {
		// A value starts at b[i].
		if i == len(b) {
			return i, false
		}
		switch c := b[i]; {
		case c == '{' || c == '[':
			if depth+len(open) >= maxNestingDepth {
				return i, false
			}
			open = append(open, c)
			i = skipSpace(b, i+1)
			if i < len(b) && b[i] == c+2 { // '}' or ']'
				open = open[:len(open)-1]
				i++
				break
			}
			if c == '{' {
				if i, ok = skipMemberStart(b, i); !ok {
					return i, false
				}
			}
			continue
		case c == '"':
			if i, ok = skipString(b, i); !ok {
				return i, false
			}
		case c == 't':
			if i, ok = skipLiteral(b, i, "true"); !ok {
				return i, false
			}
		case c == 'f':
			if i, ok = skipLiteral(b, i, "false"); !ok {
				return i, false
			}
		case c == 'n':
			if i, ok = skipLiteral(b, i, "null"); !ok {
				return i, false
			}
		case c == '-' || isDigit(c):
			if i, ok = skipNumber(b, i); !ok {
				return i, false
			}
		default:
			return i, false
		}
		// A value ended at b[i-1]: close containers until one continues.
		for {
			if len(open) == 0 {
				return i, true
			}
			i = skipSpace(b, i)
			if i == len(b) {
				return i, false
			}
			top := open[len(open)-1]
			if b[i] == top+2 {
				open = open[:len(open)-1]
				i++
				continue
			}
			if b[i] != ',' {
				return i, false
			}
			i = skipSpace(b, i+1)
			if top == '{' {
				if i, ok = skipMemberStart(b, i); !ok {
					return i, false
				}
			}
			break
		}
	}
}

// skipMemberStart validates `"name" :` at b[i] and returns the index of
// the member's value.
func skipMemberStart(b []byte, i int) (int, bool) {
	if i == len(b) || b[i] != '"' {
		return i, false
	}
	i, ok := skipString(b, i)
	if !ok {
		return i, false
	}
	i = skipSpace(b, i)
	if i == len(b) || b[i] != ':' {
		return i, false
	}
	return skipSpace(b, i+1), true
}

// skipLiteral checks that b[i:] starts with lit.
func skipLiteral(b []byte, i int, lit string) (int, bool) {
	if len(b)-i < len(lit) || string(b[i:i+len(lit)]) != lit {
		return i, false
	}
	return i + len(lit), true
}
