package jsonschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"sync"
)

// A compiled schema checks raw JSON without decoding it into a tree: the
// members of objects and the elements of arrays are found in place, a
// value whose schema constrains nothing is skipped, and scalars are
// decoded only when a keyword looks at them. It applies the keywords of
// check with the same meaning (a keyword outside the subset fails).

// node is one compiled schema.
type node struct {
	anything    bool // true, {} or annotations only
	never       bool // false
	unsupported string
	ref         *node
	types       []string
	enum        []any
	hasConst    bool
	konst       any
	min, max    *big.Rat
	minS, maxS  string
	required    []string
	props       map[string]*node
	additional  *node
	items       *node
	allOf       []*node
	anyOf       []*node
	oneOf       []*node
}

// compiled holds the nodes compiled so far, by $ref.
type compiled struct {
	mu    sync.Mutex
	byRef map[string]*node
}

func (v *Validator) compiledRef(ref string) (*node, error) {
	c := &v.comp
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.byRef == nil {
		c.byRef = map[string]*node{}
	}
	return v.compileRef(ref)
}

// compileRef compiles the schema at ref once (c.mu held); a recursive
// reference finds the node being compiled.
func (v *Validator) compileRef(ref string) (*node, error) {
	if n, ok := v.comp.byRef[ref]; ok {
		return n, nil
	}
	target, err := v.resolve(ref)
	if err != nil {
		return nil, err
	}
	n := &node{}
	v.comp.byRef[ref] = n
	if err := v.compile(target, n); err != nil {
		delete(v.comp.byRef, ref)
		return nil, err
	}
	return n, nil
}

func (v *Validator) compileNew(schema any) (*node, error) {
	n := &node{}
	return n, v.compile(schema, n)
}

func (v *Validator) compile(schema any, n *node) error {
	switch s := schema.(type) {
	case bool:
		n.anything, n.never = s, !s
		return nil
	case map[string]any:
		n.anything = true
		for k, val := range s {
			if annotationKeywords[k] {
				continue
			}
			n.anything = false
			var err error
			switch k {
			case "$ref":
				n.ref, err = v.compileRef(val.(string))
			case "type":
				if name, ok := val.(string); ok {
					n.types = []string{name}
				} else {
					for _, t := range val.([]any) {
						n.types = append(n.types, t.(string))
					}
				}
			case "enum":
				n.enum = val.([]any)
			case "const":
				n.hasConst, n.konst = true, val
			case "minimum", "maximum":
				r, ok := new(big.Rat).SetString(val.(json.Number).String())
				if !ok {
					return fmt.Errorf("bad %s %v", k, val)
				}
				if k == "minimum" {
					n.min, n.minS = r, r.RatString()
				} else {
					n.max, n.maxS = r, r.RatString()
				}
			case "required":
				for _, r := range val.([]any) {
					n.required = append(n.required, r.(string))
				}
			case "properties":
				n.props = map[string]*node{}
				for name, sub := range val.(map[string]any) {
					if n.props[name], err = v.compileNew(sub); err != nil {
						return err
					}
				}
			case "additionalProperties":
				n.additional, err = v.compileNew(val)
			case "items":
				n.items, err = v.compileNew(val)
			case "allOf", "anyOf", "oneOf":
				var list []*node
				for _, sub := range val.([]any) {
					c, err := v.compileNew(sub)
					if err != nil {
						return err
					}
					list = append(list, c)
				}
				switch k {
				case "allOf":
					n.allOf = list
				case "anyOf":
					n.anyOf = list
				default:
					n.oneOf = list
				}
			default:
				n.unsupported = k
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("schema is %T", schema)
}

// rawPath is the path of a value, rendered only for an error.
type rawPath struct {
	parent *rawPath
	name   string // a member's name, or "" for an element
	index  int
}

func (p *rawPath) String() string {
	if p.parent == nil {
		return "$"
	}
	if p.name != "" {
		return p.parent.String() + "." + p.name
	}
	return p.parent.String() + "[" + strconv.Itoa(p.index) + "]"
}

// checkRaw checks raw (valid JSON, no surrounding space) against n.
func (n *node) checkRaw(raw []byte, path *rawPath, errs *[]string) {
	if n.anything {
		return
	}
	fail := func(format string, args ...any) {
		*errs = append(*errs, path.String()+": "+fmt.Sprintf(format, args...))
	}
	if n.never {
		fail("schema false")
		return
	}
	if n.unsupported != "" {
		fail("unsupported schema keyword %q", n.unsupported)
	}
	if n.ref != nil {
		n.ref.checkRaw(raw, path, errs)
	}
	if len(raw) == 0 {
		fail("empty value")
		return
	}
	var scalar any
	decoded := false
	value := func() any {
		if !decoded {
			decoded, scalar = true, decodeRaw(raw)
		}
		return scalar
	}
	if n.types != nil && !rawTypeIn(raw, n.types) {
		fail("type %v, want %v", typeName(value()), n.types)
	}
	if n.enum != nil {
		ok := false
		for _, e := range n.enum {
			if jsonEqual(e, value()) {
				ok = true
				break
			}
		}
		if !ok {
			fail("%v not in enum %v", value(), n.enum)
		}
	}
	if n.hasConst && !jsonEqual(n.konst, value()) {
		fail("%v != const %v", value(), n.konst)
	}
	if (n.min != nil || n.max != nil) && isNumber(raw) {
		if n.min != nil && compareRaw(raw, n.min) < 0 {
			fail("%s violates minimum %s", raw, n.minS)
		}
		if n.max != nil && compareRaw(raw, n.max) > 0 {
			fail("%s violates maximum %s", raw, n.maxS)
		}
	}
	for _, sub := range n.allOf {
		sub.checkRaw(raw, path, errs)
	}
	if n.anyOf != nil || n.oneOf != nil {
		for k, list := range map[string][]*node{"anyOf": n.anyOf, "oneOf": n.oneOf} {
			if list == nil {
				continue
			}
			passed := 0
			for _, sub := range list {
				var sink []string
				sub.checkRaw(raw, path, &sink)
				if len(sink) == 0 {
					passed++
				}
			}
			if (k == "oneOf" && passed != 1) || (k == "anyOf" && passed == 0) {
				fail("%s: %d branches passed", k, passed)
			}
		}
	}
	switch raw[0] {
	case '[':
		if n.items != nil {
			i := 0
			splitJSON(raw, func(_, val []byte) {
				n.items.checkRaw(val, &rawPath{parent: path, index: i}, errs)
				i++
			})
		}
	case '{':
		if n.required == nil && n.props == nil && n.additional == nil {
			return
		}
		var found []bool
		if n.required != nil {
			found = make([]bool, len(n.required))
		}
		splitJSON(raw, func(key, val []byte) {
			name := string(key)
			if bytes.IndexByte(key, '\\') >= 0 {
				_ = json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name)
			}
			for i, r := range n.required {
				if r == name {
					found[i] = true
				}
			}
			if sub, ok := n.props[name]; ok {
				if !sub.anything {
					sub.checkRaw(val, &rawPath{parent: path, name: name}, errs)
				}
			} else if n.additional != nil {
				n.additional.checkRaw(val, &rawPath{parent: path, name: name}, errs)
			}
		})
		for i, r := range n.required {
			if !found[i] {
				fail("missing required %q", r)
			}
		}
	}
}

// compareRaw compares the number raw with lim exactly: by float64 when
// the two are clearly apart, else as rationals.
func compareRaw(raw []byte, lim *big.Rat) int {
	l, _ := lim.Float64()
	if x, err := strconv.ParseFloat(string(raw), 64); err == nil {
		if x-l > 1 {
			return 1
		}
		if l-x > 1 {
			return -1
		}
	}
	x, ok := new(big.Rat).SetString(string(raw))
	if !ok {
		return 0
	}
	return x.Cmp(lim)
}

func isNumber(raw []byte) bool { return raw[0] == '-' || (raw[0] >= '0' && raw[0] <= '9') }

// rawTypeIn reports whether raw has one of the types.
func rawTypeIn(raw []byte, types []string) bool {
	for _, t := range types {
		switch t {
		case "object":
			if raw[0] == '{' {
				return true
			}
		case "array":
			if raw[0] == '[' {
				return true
			}
		case "string":
			if raw[0] == '"' {
				return true
			}
		case "boolean":
			if raw[0] == 't' || raw[0] == 'f' {
				return true
			}
		case "null":
			if raw[0] == 'n' {
				return true
			}
		case "number":
			if isNumber(raw) {
				return true
			}
		case "integer":
			if isNumber(raw) && hasType(json.Number(raw), "integer") {
				return true
			}
		}
	}
	return false
}

// decodeRaw decodes a scalar at once, an object or array as a tree (only
// an enum or const of one needs it, or a message).
func decodeRaw(raw []byte) any {
	switch {
	case raw[0] == '"' && bytes.IndexByte(raw, '\\') < 0:
		return string(raw[1 : len(raw)-1])
	case isNumber(raw):
		return json.Number(raw)
	case string(raw) == "true":
		return true
	case string(raw) == "false":
		return false
	case string(raw) == "null":
		return nil
	}
	var v any
	if decodeJSON(raw, &v) != nil {
		return nil
	}
	return v
}

// splitJSON calls fn with each member of the object or element of the
// array raw (valid JSON, no surrounding space): the key (without quotes,
// still escaped; nil for an array) and the raw value.
func splitJSON(raw []byte, fn func(key, val []byte)) {
	i := 1
	skipSpace := func() {
		for i < len(raw) && (raw[i] == ' ' || raw[i] == '\t' || raw[i] == '\n' || raw[i] == '\r') {
			i++
		}
	}
	str := func() int { // i at an opening quote; returns the index after the closing one
		j := i + 1
		for ; j < len(raw); j++ {
			if raw[j] == '\\' {
				j++
			} else if raw[j] == '"' {
				return j + 1
			}
		}
		return j
	}
	obj := raw[0] == '{'
	for {
		skipSpace()
		if i >= len(raw) || raw[i] == '}' || raw[i] == ']' {
			return
		}
		var key []byte
		if obj {
			if raw[i] != '"' {
				return
			}
			e := str()
			if e-1 < i+1 || e > len(raw) {
				return
			}
			key = raw[i+1 : e-1]
			i = e
			skipSpace()
			i++ // ':'
			skipSpace()
		}
		start, depth := i, 0
		for i < len(raw) {
			c := raw[i]
			if c == '"' {
				i = str()
				if depth == 0 {
					break
				}
				continue
			}
			if c == '{' || c == '[' {
				depth++
			} else if c == '}' || c == ']' {
				if depth == 0 {
					break
				}
				depth--
				if depth == 0 {
					i++
					break
				}
			} else if depth == 0 && (c == ',' || c == ' ' || c == '\t' || c == '\n' || c == '\r') {
				break
			}
			i++
		}
		if i > len(raw) {
			i = len(raw)
		}
		if i == start {
			return
		}
		fn(key, raw[start:i])
		skipSpace()
		if i < len(raw) && raw[i] == ',' {
			i++
		}
	}
}
