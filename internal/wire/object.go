package wire

import (
	"bytes"
	"encoding/json"
)

// Member is one member of a JSON object: the raw key (with its quotes) and
// the raw value, both sub-slices of the scanned data. ValueStart is the
// offset of Value in the data passed to Members.
type Member struct {
	Key        []byte
	Value      []byte
	ValueStart int
	// Depth is the value's nesting depth (0 for a scalar).
	Depth int
}

// KeyIs reports whether the member's key, unescaped, equals name.
func (m Member) KeyIs(name string) bool {
	k := m.Key
	if len(k) < 2 {
		return false
	}
	inner := k[1 : len(k)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner) == name
	}
	s, ok := Unquote(k)
	return ok && s == name
}

// Members calls fn for each member of the object that starts at obj[0]
// (after optional whitespace), in order, until fn returns false. It returns
// the offset just past the object. obj must hold a complete object; invalid
// JSON is reported as a *SyntaxError.
func Members(obj []byte, fn func(m Member) bool) (int, error) {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return i, ErrNotObject
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return i + 1, nil
	}
	var stack [64]byte // for the members' values
	for {
		if i >= len(obj) || obj[i] != '"' {
			return i, synErr(i, "expected a string key")
		}
		ks := i
		ke, err := skipString(obj, i)
		if err != nil {
			return ke, err
		}
		i = skipSpace(obj, ke)
		if i >= len(obj) || obj[i] != ':' {
			return i, synErr(i, "expected ':' after an object key")
		}
		vs := skipSpace(obj, i+1)
		ve, depth, err := skipValueStack(obj, vs, stack[:0])
		if err != nil {
			return ve, err
		}
		if fn != nil && !fn(Member{Key: obj[ks:ke], Value: obj[vs:ve], ValueStart: vs, Depth: depth}) {
			fn = nil // keep validating to the end, but stop calling
		}
		i = skipSpace(obj, ve)
		if i >= len(obj) {
			return i, synErr(i, "unexpected end of input inside an object")
		}
		switch obj[i] {
		case ',':
			i = skipSpace(obj, i+1)
		case '}':
			return i + 1, nil
		default:
			return i, synErr(i, "expected ',' or '}' in an object")
		}
	}
}

// Lookup returns the raw value of the last member named key in the object
// obj, and its offset in obj.
func Lookup(obj []byte, key string) (val []byte, start int, ok bool) {
	_, err := Members(obj, func(m Member) bool {
		if m.KeyIs(key) {
			val, start, ok = m.Value, m.ValueStart, true
		}
		return true
	})
	if err != nil {
		return nil, 0, false
	}
	return val, start, ok
}

// Elements calls fn for each element of the array that starts at arr[0]
// (after optional whitespace), with the element's offset in arr. It returns
// the offset of the closing ']'.
func Elements(arr []byte, fn func(elem []byte, start int)) (closing int, err error) {
	i := skipSpace(arr, 0)
	if i >= len(arr) || arr[i] != '[' {
		return i, synErr(i, "expected an array")
	}
	i = skipSpace(arr, i+1)
	if i < len(arr) && arr[i] == ']' {
		return i, nil
	}
	for {
		end, err := SkipValue(arr, i)
		if err != nil {
			return end, err
		}
		fn(arr[i:end], i)
		i = skipSpace(arr, end)
		if i >= len(arr) {
			return i, synErr(i, "unexpected end of input inside an array")
		}
		switch arr[i] {
		case ',':
			i = skipSpace(arr, i+1)
		case ']':
			return i, nil
		default:
			return i, synErr(i, "expected ',' or ']' in an array")
		}
	}
}

// Unquote decodes a raw JSON string (with quotes).
func Unquote(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' {
		return "", false
	}
	inner := raw[1 : len(raw)-1]
	if bytes.IndexByte(inner, '\\') < 0 {
		return string(inner), true
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", false
	}
	return s, true
}

// IsNull reports whether raw is absent or the literal null.
func IsNull(raw []byte) bool {
	return len(raw) == 0 || string(raw) == "null"
}
