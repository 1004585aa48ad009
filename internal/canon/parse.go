package canon

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// Kind is the kind of a JSON value in a Doc.
type Kind uint8

const (
	// Null is the JSON null.
	Null Kind = iota
	// False is the JSON false.
	False
	// True is the JSON true.
	True
	// Number is a JSON number.
	Number
	// String is a JSON string.
	String
	// Array is a JSON array.
	Array
	// Object is a JSON object.
	Object
)

// SyntaxError is returned for input that is not valid JSON.
type SyntaxError struct {
	Offset int    // byte offset of the problem in the input
	Msg    string // what is wrong, lower-case
}

// Error implements error.
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("invalid JSON at offset %d: %s", e.Offset, e.Msg)
}

// node is one value of a Doc, in pre-order. Object members are a key node
// (kind String) followed by the value's subtree.
type node struct {
	// start, end: for strings the decoded bytes are src[start:end] where src
	// is the input, or the arena when inArena is set; for numbers the input
	// span; for containers end is the index of the first node after the
	// subtree (start unused).
	start, end uint32
	kind       Kind
	inArena    bool
	ascii      bool // strings: the decoded bytes are all ASCII
}

// Doc is a parsed JSON document: a read-only tree of values addressed by
// node index, the root being 0. Children of a container follow it in
// pre-order. A Doc is not safe for concurrent use (Members uses scratch).
type Doc struct {
	raw   []byte
	arena []byte // decoded strings that contained escapes
	nodes []node
	stack []uint32
	// scratch for writing
	members []int32
	frames  []frame
	// findClash: the writer looks for member names that differ only in
	// letter case (Op.CaseClash); clashFound and clash hold the first.
	findClash  bool
	clashFound bool
	clash      [2]int32
}

// Parse parses raw, which must hold exactly one JSON value (surrounding
// whitespace allowed). The Doc keeps a reference to raw; do not modify raw
// while the Doc is in use.
func Parse(raw []byte) (*Doc, error) {
	d := &Doc{}
	if err := d.parse(raw); err != nil {
		return nil, err
	}
	return d, nil
}

// Len returns the number of nodes (values and object member names).
func (d *Doc) Len() int { return len(d.nodes) }

// Kind returns the kind of node n.
func (d *Doc) Kind(n int) Kind { return d.nodes[n].kind }

// End returns the index of the first node after n's subtree: the next
// sibling, or the parent's end.
func (d *Doc) End(n int) int {
	nd := &d.nodes[n]
	if nd.kind >= Array {
		return int(nd.end)
	}
	return n + 1
}

// Str returns the decoded bytes of string node n. The result aliases the
// Doc and must not be modified. It is valid UTF-8 unless the string held
// lone surrogate escapes or invalid UTF-8 bytes, which are kept distinct
// (see the package documentation): a lone surrogate \uXXXX is its 3-byte
// generalised UTF-8 form (0xED 0xA0–0xBF 0x80–0xBF) and an invalid input
// byte b is the pair 0xFF b. Neither occurs in valid UTF-8, so a decoded
// string that is valid UTF-8 is exactly the string's text. Use AppendValid
// for a valid UTF-8 copy.
func (d *Doc) Str(n int) []byte {
	nd := &d.nodes[n]
	if nd.inArena {
		return d.arena[nd.start:nd.end]
	}
	return d.raw[nd.start:nd.end]
}

// NumberText returns the JSON text of number node n as written in the input.
func (d *Doc) NumberText(n int) []byte {
	nd := &d.nodes[n]
	return d.raw[nd.start:nd.end]
}

// Elems appends the node indices of the elements of array n to dst.
func (d *Doc) Elems(n int, dst []int32) []int32 {
	end := int(d.nodes[n].end)
	for c := n + 1; c < end; c = d.End(c) {
		dst = append(dst, int32(c))
	}
	return dst
}

// Members appends the node indices of the member names of object n to dst,
// sorted by decoded name bytes; of a name that occurs more than once only
// the last occurrence is kept. The value of member k is node k+1.
func (d *Doc) Members(n int, dst []int32) []int32 {
	base := len(dst)
	end := int(d.nodes[n].end)
	sorted := true
	for c := n + 1; c < end; c = d.End(c + 1) {
		if sorted && len(dst) > base && bytes.Compare(d.Str(int(dst[len(dst)-1])), d.Str(c)) >= 0 {
			sorted = false
		}
		dst = append(dst, int32(c))
	}
	if sorted {
		return dst
	}
	m := dst[base:]
	slices.SortStableFunc(m, func(a, b int32) int { return bytes.Compare(d.Str(int(a)), d.Str(int(b))) })
	// Keep the last of each run of equal names (the stable sort kept
	// document order within a run).
	w := 0
	for i := range m {
		if i+1 < len(m) && bytes.Equal(d.Str(int(m[i])), d.Str(int(m[i+1]))) {
			continue
		}
		m[w] = m[i]
		w++
	}
	return dst[:base+w]
}

func syntaxErr(off int, format string, args ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, args...)}
}

func skipWS(raw []byte, i int) int {
	for i < len(raw) {
		switch raw[i] {
		case ' ', '\t', '\n', '\r':
			i++
		default:
			return i
		}
	}
	return i
}

// parse states
const (
	stValue = iota // expecting a value
	stAfter        // after a value: ',' or a closing bracket (or end of input)
	stKey          // expecting a member name
)

func (d *Doc) parse(raw []byte) error {
	if len(raw) >= math.MaxUint32 {
		return syntaxErr(0, "input too large (%d bytes)", len(raw))
	}
	d.raw = raw
	d.nodes = d.nodes[:0]
	d.arena = d.arena[:0]
	d.stack = d.stack[:0]
	// Every node but the root follows one of these bytes, so their count
	// bounds the node count (strings holding them only inflate it).
	if want := 1 + bytes.Count(raw, []byte{','}) + bytes.Count(raw, []byte{':'}) +
		bytes.Count(raw, []byte{'['}) + bytes.Count(raw, []byte{'{'}); cap(d.nodes) < want {
		d.nodes = make([]node, 0, want)
	}
	i := skipWS(raw, 0)
	if i == len(raw) {
		return syntaxErr(i, "empty input")
	}
	state := stValue
	for {
		switch state {
		case stValue:
			if i >= len(raw) {
				return syntaxErr(i, "unexpected end of input, expecting a value")
			}
			c := raw[i]
			switch {
			case c == '{' || c == '[':
				k := Object
				closer := byte('}')
				if c == '[' {
					k, closer = Array, ']'
				}
				idx := uint32(len(d.nodes))
				d.nodes = append(d.nodes, node{kind: k})
				i = skipWS(raw, i+1)
				if i < len(raw) && raw[i] == closer {
					d.nodes[idx].end = uint32(len(d.nodes))
					i++
					state = stAfter
					continue
				}
				d.stack = append(d.stack, idx)
				if k == Object {
					state = stKey
				}
				continue
			case c == '"':
				j, err := d.parseString(raw, i)
				if err != nil {
					return err
				}
				i = j
			case c == '-' || (c >= '0' && c <= '9'):
				j, p := wire.ScanNumber(raw, i)
				if p != wire.NumberOK {
					return syntaxErr(i, "%s", numberProblems[p])
				}
				d.nodes = append(d.nodes, node{kind: Number, start: uint32(i), end: uint32(j)})
				i = j
			case c == 't':
				if !bytes.HasPrefix(raw[i:], []byte("true")) {
					return syntaxErr(i, "invalid literal, expecting true")
				}
				d.nodes = append(d.nodes, node{kind: True})
				i += 4
			case c == 'f':
				if !bytes.HasPrefix(raw[i:], []byte("false")) {
					return syntaxErr(i, "invalid literal, expecting false")
				}
				d.nodes = append(d.nodes, node{kind: False})
				i += 5
			case c == 'n':
				if !bytes.HasPrefix(raw[i:], []byte("null")) {
					return syntaxErr(i, "invalid literal, expecting null")
				}
				d.nodes = append(d.nodes, node{kind: Null})
				i += 4
			default:
				return syntaxErr(i, "unexpected character %q, expecting a value", c)
			}
			state = stAfter
		case stAfter:
			i = skipWS(raw, i)
			if len(d.stack) == 0 {
				if i != len(raw) {
					return syntaxErr(i, "unexpected character %q after the value", raw[i])
				}
				return nil
			}
			if i >= len(raw) {
				return syntaxErr(i, "unexpected end of input, expecting ',' or a closing bracket")
			}
			top := d.stack[len(d.stack)-1]
			isObj := d.nodes[top].kind == Object
			switch c := raw[i]; {
			case c == ',':
				i = skipWS(raw, i+1)
				if isObj {
					state = stKey
				} else {
					state = stValue
				}
			case (c == '}' && isObj) || (c == ']' && !isObj):
				d.nodes[top].end = uint32(len(d.nodes))
				d.stack = d.stack[:len(d.stack)-1]
				i++
			default:
				return syntaxErr(i, "unexpected character %q, expecting ',' or a closing bracket", c)
			}
		case stKey:
			if i >= len(raw) || raw[i] != '"' {
				if i >= len(raw) {
					return syntaxErr(i, "unexpected end of input, expecting a member name")
				}
				return syntaxErr(i, "unexpected character %q, expecting a member name", raw[i])
			}
			j, err := d.parseString(raw, i)
			if err != nil {
				return err
			}
			i = skipWS(raw, j)
			if i >= len(raw) || raw[i] != ':' {
				return syntaxErr(i, "expecting ':' after a member name")
			}
			i = skipWS(raw, i+1)
			state = stValue
		}
	}
}

// parseString parses the string starting at raw[i] == '"', appends its node
// and returns the offset after the closing quote.
func (d *Doc) parseString(raw []byte, i int) (int, error) {
	start := i + 1
	j := start
	ascii := true
	for {
		for j < len(raw) && plainASCII[raw[j]] {
			j++
		}
		if j >= len(raw) {
			return 0, syntaxErr(i, "unterminated string")
		}
		c := raw[j]
		if c == '"' {
			break
		}
		if c == '\\' {
			return d.parseEscapedString(raw, i, j, ascii)
		}
		if c < 0x20 {
			return 0, syntaxErr(j, "control character %#02x in string", c)
		}
		if c >= 0x80 {
			ascii = false
		}
		j++
	}
	if !ascii && !utf8.Valid(raw[start:j]) {
		// Decode into the arena, which keeps invalid bytes distinct.
		return d.parseEscapedString(raw, i, start, true)
	}
	d.nodes = append(d.nodes, node{kind: String, start: uint32(start), end: uint32(j), ascii: ascii})
	return j + 1, nil
}

// plainASCII marks the bytes a string can hold that need no attention:
// ASCII from U+0020 except '"' and '\\'.
var plainASCII = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// parseEscapedString decodes the string that starts at raw[q] == '"' into
// the arena; raw[q+1:j] is known to hold no backslash, control character or
// quote, and ascii says whether it is all ASCII. Lone surrogate escapes and
// invalid UTF-8 bytes are encoded as Str describes.
func (d *Doc) parseEscapedString(raw []byte, q, j int, ascii bool) (int, error) {
	start := q + 1
	aStart := len(d.arena)
	if ascii || utf8.Valid(raw[start:j]) {
		d.arena = append(d.arena, raw[start:j]...)
	} else {
		j = start
	}
	for {
		if j >= len(raw) {
			return 0, syntaxErr(q, "unterminated string")
		}
		c := raw[j]
		switch {
		case c == '"':
			if len(d.arena) >= math.MaxUint32 {
				return 0, syntaxErr(q, "input too large")
			}
			d.nodes = append(d.nodes, node{kind: String, start: uint32(aStart), end: uint32(len(d.arena)), inArena: true, ascii: ascii})
			return j + 1, nil
		case c == '\\':
			if j+1 >= len(raw) {
				return 0, syntaxErr(j, "unterminated escape")
			}
			e := raw[j+1]
			switch e {
			case '"', '\\', '/':
				d.arena = append(d.arena, e)
			case 'b':
				d.arena = append(d.arena, '\b')
			case 'f':
				d.arena = append(d.arena, '\f')
			case 'n':
				d.arena = append(d.arena, '\n')
			case 'r':
				d.arena = append(d.arena, '\r')
			case 't':
				d.arena = append(d.arena, '\t')
			case 'u':
				r, ok := hex4(raw, j+2)
				if !ok {
					return 0, syntaxErr(j, "invalid \\u escape")
				}
				lone := false
				switch {
				case r >= 0xD800 && r < 0xDC00:
					lo, ok2 := rune(0), false
					if j+7 < len(raw) && raw[j+6] == '\\' && raw[j+7] == 'u' {
						lo, ok2 = hex4(raw, j+8)
					}
					if ok2 && lo >= 0xDC00 && lo <= 0xDFFF {
						r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
						j += 6
					} else {
						lone = true
					}
				case r >= 0xDC00 && r <= 0xDFFF:
					lone = true
				}
				if r >= utf8.RuneSelf {
					ascii = false
				}
				if lone {
					// Generalised UTF-8 (WTF-8): never valid UTF-8.
					d.arena = append(d.arena, 0xED, 0x80|byte(r>>6&0x3F), 0x80|byte(r&0x3F))
				} else {
					d.arena = utf8.AppendRune(d.arena, r)
				}
				j += 4
			default:
				return 0, syntaxErr(j, "invalid escape character %q", e)
			}
			j += 2
		case c < 0x20:
			return 0, syntaxErr(j, "control character %#02x in string", c)
		case c < 0x80:
			d.arena = append(d.arena, c)
			j++
		default:
			ascii = false
			r, size := utf8.DecodeRune(raw[j:])
			if r == utf8.RuneError && size == 1 {
				d.arena = append(d.arena, invalidMark, c)
				j++
				continue
			}
			d.arena = append(d.arena, raw[j:j+size]...)
			j += size
		}
	}
}

func hex4(raw []byte, i int) (rune, bool) {
	if i+4 > len(raw) {
		return 0, false
	}
	var r rune
	for _, c := range raw[i : i+4] {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}

// numberProblems words wire.ScanNumber's problems for a SyntaxError.
var numberProblems = [...]string{
	wire.NumberNoDigits:   "invalid number",
	wire.NumberNoFraction: "invalid number: digit expected after '.'",
	wire.NumberNoExponent: "invalid number: digit expected in exponent",
}
