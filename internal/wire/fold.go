package wire

import (
	"strings"
	"unicode/utf8"
)

// EnvelopeNames are the JSON-RPC members of a message's top level.
var EnvelopeNames = []string{"jsonrpc", "id", "method", "params", "result", "error"}

// maxFoldBytes bounds the raw key a case variant of a name of n bytes can
// have: a rune that folds to an ASCII letter is at most 3 bytes in UTF-8
// (U+212A KELVIN SIGN folds to k), and at most 6 bytes escaped (\u212a).
const maxFoldBytes = 6

// CaseVariant reports whether the member's name, unescaped, equals one of
// names under Unicode case folding (strings.EqualFold: the matching
// encoding/json does when it decodes into a struct) without being equal
// byte for byte: "ID" for "id", "NAME" or "\u004eame" for "name", "K" for
// "k". It returns the name as sent and the name it folds to. A name that is
// not one of names and is not a case variant of one costs one scan of a
// short key.
func (m Member) CaseVariant(names []string) (got, want string, ok bool) {
	k := m.Key
	inner, plain, ok := keyInner(k)
	if !ok {
		return "", "", false
	}
	if plain {
		// Only ASCII letters fold to ASCII letters: same length.
		for _, n := range names {
			if len(inner) == len(n) && string(inner) != n && strings.EqualFold(string(inner), n) {
				return string(inner), n, true
			}
		}
		return "", "", false
	}
	longest := 0
	for _, n := range names {
		longest = max(longest, len(n))
	}
	if len(inner) > maxFoldBytes*longest {
		return "", "", false
	}
	s, ok := Unquote(k)
	if !ok {
		return "", "", false
	}
	for _, n := range names {
		if s != n && strings.EqualFold(s, n) {
			return s, n, true
		}
	}
	return "", "", false
}

// NameFolds returns the first of names that the member's name, unescaped,
// equals or folds to (strings.EqualFold): the field encoding/json would
// decode the member into, for a struct whose fields are names. ok is false
// when there is none. It does not allocate for a name without escapes.
func (m Member) NameFolds(names []string) (name string, ok bool) {
	k := m.Key
	inner, plain, ok := keyInner(k)
	if !ok {
		return "", false
	}
	if plain {
		// Only ASCII letters fold to ASCII letters: same length, and a
		// name with a byte from 0x80 cannot match.
		for _, n := range names {
			if len(inner) == len(n) && asciiEqualFold(inner, n) {
				return n, true
			}
		}
		return "", false
	}
	longest := 0
	for _, n := range names {
		longest = max(longest, len(n))
	}
	if len(inner) > maxFoldBytes*longest {
		return "", false
	}
	s, ok := Unquote(k)
	if !ok {
		return "", false
	}
	for _, n := range names {
		if strings.EqualFold(s, n) {
			return n, true
		}
	}
	return "", false
}

// asciiEqualFold compares b with s of the same length byte by byte,
// ignoring the case of ASCII letters.
func asciiEqualFold(b []byte, s string) bool {
	for k := range len(b) {
		x, y := b[k], s[k]
		if x == y {
			continue
		}
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

// keyInner returns a member's name between its quotes and whether it is
// plain (ASCII without escapes: its bytes are the name); ok is false for a
// key too short to be a quoted string.
func keyInner(k []byte) (inner []byte, plain, ok bool) {
	if len(k) < 2 {
		return nil, false, false
	}
	inner = k[1 : len(k)-1]
	for _, c := range inner {
		if c >= utf8.RuneSelf || c == '\\' {
			return inner, false, true
		}
	}
	return inner, true, true
}
