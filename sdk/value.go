package sdk

import (
	"bytes"
	"errors"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf16"
	"unicode/utf8"
)

// Kind is the type of a JSON value.
type Kind uint8

// JSON value kinds.
const (
	Null Kind = iota
	Bool
	Number
	String
	Array
	Object
)

// Value is a parsed JSON value. It is a plain tree (no reflection, no
// maps), which makes it several times cheaper than encoding/json inside a
// WebAssembly guest, where every hook call counts.
type Value struct {
	Kind Kind
	// Bool is the value of a Bool.
	Bool bool
	// Text is a String's decoded text, or a Number's literal text (exact,
	// as written; see CanonicalNumber).
	Text string
	// Items are an Array's elements.
	Items []Value
	// Members are an Object's members in document order; a name may occur
	// twice (Get and the canonical form take the last).
	Members []Member

	start, end int // byte span in the parsed input
}

// Member is one name/value pair of an object.
type Member struct {
	Name  string
	Value Value
}

// MaxDepth is the deepest nesting ParseJSON accepts.
const MaxDepth = 10000

// ParseJSON parses exactly one JSON value (RFC 8259) with surrounding
// whitespace. Strings must be valid UTF-8 without unpaired surrogate
// escapes: the host's canonical form keeps such strings distinct, which a
// Go string of text cannot, so they are an error (a plugin failure for the
// host), never silently replaced.
func ParseJSON(b []byte) (Value, error) {
	p := parsers.Get().(*parser)
	defer func() {
		p.b = nil
		parsers.Put(p)
	}()
	p.b, p.i = b, 0
	p.ws()
	v, err := p.value(0)
	if err != nil {
		return Value{}, err
	}
	p.ws()
	if p.i != len(p.b) {
		return Value{}, p.errorf("data after the JSON value")
	}
	return v, nil
}

// Get returns the last member called name of an object.
func (v Value) Get(name string) (Value, bool) {
	for i := len(v.Members) - 1; i >= 0; i-- {
		if v.Members[i].Name == name {
			return v.Members[i].Value, true
		}
	}
	return Value{}, false
}

// WithoutKeyFields returns an object without its top-level key fields
// (see IsKeyField); other values are returned unchanged.
func (v Value) WithoutKeyFields(keyFields []string) Value {
	if v.Kind != Object || !slices.ContainsFunc(v.Members, func(m Member) bool { return IsKeyField(m.Name, keyFields) }) {
		return v
	}
	out := v
	out.Members = make([]Member, 0, len(v.Members))
	for _, m := range v.Members {
		if !IsKeyField(m.Name, keyFields) {
			out.Members = append(out.Members, m)
		}
	}
	return out
}

// AppendCanonical appends the canonical encoding of v (see Canonical) to
// dst.
func (v Value) AppendCanonical(dst []byte) ([]byte, error) {
	switch v.Kind {
	case Null:
		return append(dst, "null"...), nil
	case Bool:
		return strconv.AppendBool(dst, v.Bool), nil
	case Number:
		n, err := CanonicalNumber(v.Text)
		if err != nil {
			return dst, err
		}
		return append(dst, n...), nil
	case String:
		return appendString(dst, v.Text), nil
	case Array:
		dst = append(dst, '[')
		for i, it := range v.Items {
			if i > 0 {
				dst = append(dst, ',')
			}
			var err error
			if dst, err = it.AppendCanonical(dst); err != nil {
				return dst, err
			}
		}
		return append(dst, ']'), nil
	case Object:
		// Sort member indices (on the stack for small objects), stable so
		// that of two equal names the later one comes last and wins.
		var small [32]int32
		idx := small[:0]
		if len(v.Members) > len(small) {
			idx = make([]int32, 0, len(v.Members))
		}
		for i := range v.Members {
			idx = append(idx, int32(i))
		}
		ms := v.Members
		slices.SortStableFunc(idx, func(a, b int32) int { return strings.Compare(ms[a].Name, ms[b].Name) })
		dst = append(dst, '{')
		first := true
		for i, j := range idx {
			m := ms[j]
			if i+1 < len(idx) && ms[idx[i+1]].Name == m.Name {
				continue // a later duplicate wins
			}
			if !first {
				dst = append(dst, ',')
			}
			first = false
			dst = appendString(dst, m.Name)
			dst = append(dst, ':')
			var err error
			if dst, err = m.Value.AppendCanonical(dst); err != nil {
				return dst, err
			}
		}
		return append(dst, '}'), nil
	}
	return dst, errors.New("sdk: invalid value kind")
}

// appendString writes s as a JSON string, escaping only '"', '\' and
// control characters.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"')
}

// parser keeps scratch stacks for members and items, so each container
// costs one exact-size allocation instead of repeated growth.
type parser struct {
	b     []byte
	i     int
	ms    []Member
	items []Value
}

var parsers = sync.Pool{New: func() any { return new(parser) }}

func (p *parser) errorf(msg string) error {
	return errors.New("sdk: invalid JSON at byte " + strconv.Itoa(p.i) + ": " + msg)
}

func (p *parser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *parser) value(depth int) (Value, error) {
	if depth > MaxDepth {
		return Value{}, p.errorf("nested too deeply")
	}
	if p.i >= len(p.b) {
		return Value{}, p.errorf("unexpected end")
	}
	start := p.i
	var v Value
	var err error
	switch c := p.b[p.i]; {
	case c == '{':
		v, err = p.object(depth)
	case c == '[':
		v, err = p.array(depth)
	case c == '"':
		var s string
		s, err = p.str()
		v = Value{Kind: String, Text: s}
	case c == 't':
		v, err = Value{Kind: Bool, Bool: true}, p.lit("true")
	case c == 'f':
		v, err = Value{Kind: Bool}, p.lit("false")
	case c == 'n':
		v, err = Value{Kind: Null}, p.lit("null")
	case c == '-' || c >= '0' && c <= '9':
		v, err = p.number()
	default:
		return Value{}, p.errorf("unexpected character " + strconv.QuoteRune(rune(c)))
	}
	v.start, v.end = start, p.i
	return v, err
}

func (p *parser) lit(s string) error {
	if !bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		return p.errorf("invalid literal")
	}
	p.i += len(s)
	return nil
}

func (p *parser) object(depth int) (Value, error) {
	p.i++ // {
	v := Value{Kind: Object}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return v, nil
	}
	base := len(p.ms)
	defer func() { p.ms = p.ms[:base] }()
	for {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return v, p.errorf("expected a member name")
		}
		name, err := p.str()
		if err != nil {
			return v, err
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return v, p.errorf("expected ':'")
		}
		p.i++
		p.ws()
		val, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		p.ms = append(p.ms, Member{name, val})
		p.ws()
		if p.i >= len(p.b) {
			return v, p.errorf("unexpected end in object")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case '}':
			p.i++
			v.Members = slices.Clone(p.ms[base:])
			return v, nil
		default:
			return v, p.errorf("expected ',' or '}'")
		}
	}
}

func (p *parser) array(depth int) (Value, error) {
	p.i++ // [
	v := Value{Kind: Array}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return v, nil
	}
	base := len(p.items)
	defer func() { p.items = p.items[:base] }()
	for {
		p.ws()
		it, err := p.value(depth + 1)
		if err != nil {
			return v, err
		}
		p.items = append(p.items, it)
		p.ws()
		if p.i >= len(p.b) {
			return v, p.errorf("unexpected end in array")
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			v.Items = slices.Clone(p.items[base:])
			return v, nil
		default:
			return v, p.errorf("expected ',' or ']'")
		}
	}
}

func (p *parser) number() (Value, error) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.b) && p.b[p.i] == '0':
		p.i++
	case p.i < len(p.b) && p.b[p.i] >= '1' && p.b[p.i] <= '9':
		p.digits()
	default:
		return Value{}, p.errorf("invalid number")
	}
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if p.digits() == 0 {
			return Value{}, p.errorf("invalid number")
		}
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if p.digits() == 0 {
			return Value{}, p.errorf("invalid number")
		}
	}
	return Value{Kind: Number, Text: string(p.b[start:p.i])}, nil
}

func (p *parser) digits() int {
	n := 0
	for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
		p.i++
		n++
	}
	return n
}

// str parses a string starting at the opening quote.
func (p *parser) str() (string, error) {
	p.i++ // "
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			raw := p.b[start:p.i]
			p.i++
			if !utf8.Valid(raw) {
				return "", p.errorf("invalid UTF-8 in string")
			}
			return string(raw), nil
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", p.errorf("control character in string")
		}
		p.i++
	}
	return "", p.errorf("unterminated string")
}

// escaped finishes a string that contains escapes.
func (p *parser) escaped(start int) (string, error) {
	buf := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			if !utf8.Valid(buf) {
				return "", p.errorf("invalid UTF-8 in string")
			}
			return string(buf), nil
		case c < 0x20:
			return "", p.errorf("control character in string")
		case c != '\\':
			buf = append(buf, c)
			p.i++
			continue
		}
		if p.i+1 >= len(p.b) {
			break
		}
		e := p.b[p.i+1]
		p.i += 2
		switch e {
		case '"', '\\', '/':
			buf = append(buf, e)
		case 'b':
			buf = append(buf, '\b')
		case 'f':
			buf = append(buf, '\f')
		case 'n':
			buf = append(buf, '\n')
		case 'r':
			buf = append(buf, '\r')
		case 't':
			buf = append(buf, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", p.errorf("invalid \\u escape")
			}
			if utf16.IsSurrogate(r) {
				if r >= 0xdc00 || p.i+1 >= len(p.b) || p.b[p.i] != '\\' || p.b[p.i+1] != 'u' {
					return "", p.errorf("unpaired surrogate escape")
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok || r2 < 0xdc00 || r2 > 0xdfff {
					return "", p.errorf("unpaired surrogate escape")
				}
				r = utf16.DecodeRune(r, r2)
			}
			buf = utf8.AppendRune(buf, r)
		default:
			return "", p.errorf("invalid escape")
		}
	}
	return "", p.errorf("unterminated string")
}

func (p *parser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	var r rune
	for _, c := range p.b[p.i : p.i+4] {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		default:
			return 0, false
		}
	}
	p.i += 4
	return r, true
}
