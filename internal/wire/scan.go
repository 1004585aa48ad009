// Package wire reads JSON-RPC messages without re-encoding them: it validates
// a message and finds the byte ranges of the parts the relay looks at, so
// every other byte can be forwarded unchanged.
//
// The scanner is iterative (an explicit stack, no recursion), has no nesting
// limit and no size limit, and does not check UTF-8 (bytes are forwarded as
// they came, like encoding/json.Valid does).
package wire

import (
	"errors"
	"fmt"
)

// SyntaxError reports invalid JSON at byte offset Offset.
type SyntaxError struct {
	Offset int
	msg    string
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at byte %d: %s", e.Offset, e.msg)
}

// ErrNotObject is returned by ParseEnvelope for a JSON value that is not an
// object (a batch array, a number, …).
var ErrNotObject = errors.New("message is not a JSON object")

func synErr(off int, msg string) error { return &SyntaxError{Offset: off, msg: msg} }

// Valid reports whether data is exactly one JSON value, optionally surrounded
// by whitespace.
func Valid(data []byte) bool {
	end, err := SkipValue(data, 0)
	if err != nil {
		return false
	}
	return skipSpace(data, end) == len(data)
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func skipSpace(d []byte, i int) int {
	for i < len(d) && isSpace(d[i]) {
		i++
	}
	return i
}

// SkipValue validates the JSON value that starts at d[i] (after optional
// whitespace) and returns the offset just past it.
func SkipValue(d []byte, i int) (int, error) {
	end, _, err := skipValueDepth(d, i)
	return end, err
}

// skipValueDepth is SkipValue that also returns the value's nesting depth
// (0 for a scalar, 1 for a flat object or array).
func skipValueDepth(d []byte, i int) (end, depth int, err error) {
	// stack holds '{' or '[' per open container; it lives on the heap only
	// for deeply nested input.
	var small [64]byte
	return skipValueStack(d, i, small[:0])
}

// skipValueStack is skipValueDepth with the caller's empty stack buffer
// (Members reuses one for all its members).
func skipValueStack(d []byte, i int, stack []byte) (end, depth int, err error) {
	i = skipSpace(d, i)
value:
	if i >= len(d) {
		return i, depth, synErr(i, "unexpected end of input, expected a value")
	}
	switch c := d[i]; {
	case c == '{':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == '}' {
			i++
			depth = max(depth, len(stack)+1)
			goto after
		}
		stack = append(stack, '{')
		depth = max(depth, len(stack))
		if i, err = skipKey(d, i); err != nil {
			return i, depth, err
		}
		goto value
	case c == '[':
		i = skipSpace(d, i+1)
		if i < len(d) && d[i] == ']' {
			i++
			depth = max(depth, len(stack)+1)
			goto after
		}
		stack = append(stack, '[')
		depth = max(depth, len(stack))
		goto value
	case c == '"':
		if i, err = skipString(d, i); err != nil {
			return i, depth, err
		}
	case c == 't':
		if i, err = skipLiteral(d, i, "true"); err != nil {
			return i, depth, err
		}
	case c == 'f':
		if i, err = skipLiteral(d, i, "false"); err != nil {
			return i, depth, err
		}
	case c == 'n':
		if i, err = skipLiteral(d, i, "null"); err != nil {
			return i, depth, err
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if i, err = skipNumber(d, i); err != nil {
			return i, depth, err
		}
	default:
		return i, depth, synErr(i, fmt.Sprintf("unexpected character %q", c))
	}
after:
	for len(stack) > 0 {
		i = skipSpace(d, i)
		if i >= len(d) {
			return i, depth, synErr(i, "unexpected end of input inside a container")
		}
		top := stack[len(stack)-1]
		switch c := d[i]; {
		case c == ',':
			i = skipSpace(d, i+1)
			if top == '{' {
				if i, err = skipKey(d, i); err != nil {
					return i, depth, err
				}
			}
			goto value
		case (top == '{' && c == '}') || (top == '[' && c == ']'):
			stack = stack[:len(stack)-1]
			i++
		default:
			return i, depth, synErr(i, fmt.Sprintf("unexpected character %q after a value", c))
		}
	}
	return i, depth, nil
}

// skipKey skips `"key" :` plus the whitespace after the colon.
func skipKey(d []byte, i int) (int, error) {
	if i >= len(d) || d[i] != '"' {
		return i, synErr(i, "expected a string key")
	}
	i, err := skipString(d, i)
	if err != nil {
		return i, err
	}
	i = skipSpace(d, i)
	if i >= len(d) || d[i] != ':' {
		return i, synErr(i, "expected ':' after an object key")
	}
	return skipSpace(d, i+1), nil
}

func skipLiteral(d []byte, i int, lit string) (int, error) {
	if len(d)-i < len(lit) || string(d[i:i+len(lit)]) != lit {
		return i, synErr(i, "invalid literal")
	}
	return i + len(lit), nil
}

// skipString skips the string starting at the quote d[i].
func skipString(d []byte, i int) (int, error) {
	start := i
	i++
	for i < len(d) {
		// Most bytes need no attention: skip them with one table look-up
		// each.
		for i < len(d) && plainString[d[i]] {
			i++
		}
		if i >= len(d) {
			break
		}
		c := d[i]
		switch {
		case c == '"':
			return i + 1, nil
		case c == '\\':
			if i+1 >= len(d) {
				return i, synErr(i, "unterminated escape")
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(d) {
					return i, synErr(i, "short \\u escape")
				}
				for _, h := range d[i+2 : i+6] {
					if !isHex(h) {
						return i, synErr(i, "invalid \\u escape")
					}
				}
				i += 6
			default:
				return i, synErr(i, "invalid escape")
			}
		case c < 0x20:
			return i, synErr(i, "control character in string")
		default:
			i++
		}
	}
	return i, synErr(start, "unterminated string")
}

// plainString marks the bytes a string can hold that need no attention:
// all but '"', '\\' and control characters (bytes from 0x80 included: the
// scanner does not check UTF-8).
var plainString = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// skipNumber skips a JSON number per RFC 8259.
func skipNumber(d []byte, i int) (int, error) {
	end, p := ScanNumber(d, i)
	switch p {
	case NumberNoDigits:
		return i, synErr(i, "invalid number")
	case NumberNoFraction:
		return i, synErr(i, "invalid number fraction")
	case NumberNoExponent:
		return i, synErr(i, "invalid number exponent")
	}
	return end, nil
}
