// Package jsonschema is a minimal JSON Schema (draft 2020-12) validator
// for the subset the repository's published schemas use (the report file's
// and the trace's). It is small on purpose: no new dependency for a
// validator, and a schema keyword outside the subset fails validation
// rather than being ignored.
package jsonschema

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/big"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Validator is a minimal JSON Schema validator for the subset
// report.schema.json uses: type, required, properties,
// additionalProperties, items, enum, const, allOf, oneOf, anyOf, minimum, maximum
// and local $ref. Any other keyword makes validation fail, so the schema
// cannot silently rely on something this validator ignores.
type Validator struct {
	root map[string]any
	comp compiled // the subschemas ValidateRef compiled
}

var annotationKeywords = map[string]bool{"$schema": true, "$id": true, "title": true, "description": true, "$defs": true}

// New parses a schema.
func New(schema []byte) (*Validator, error) {
	var root map[string]any
	if err := decodeJSON(schema, &root); err != nil {
		return nil, fmt.Errorf("parsing schema: %v", err)
	}
	return &Validator{root: root}, nil
}

func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	if err := d.Decode(v); err != nil {
		return err
	}
	if _, err := d.Token(); err != io.EOF {
		return errors.New("data after the JSON value")
	}
	return nil
}

// Validate returns every violation of doc against the root schema, each
// as "$.path: problem"; none when doc is valid.
func (v *Validator) Validate(doc []byte) []string {
	var inst any
	if err := decodeJSON(doc, &inst); err != nil {
		return []string{"not JSON: " + err.Error()}
	}
	var errs []string
	v.check(v.root, inst, "$", &errs)
	return errs
}

// ValidateRef is Validate against the subschema at ref (a local "#/..."
// reference), e.g. one branch of a oneOf chosen by a discriminating field,
// so that the other branches are not tried.
func (v *Validator) ValidateRef(ref string, doc []byte) []string {
	if !json.Valid(doc) {
		var inst any
		err := decodeJSON(doc, &inst)
		return []string{"not JSON: " + err.Error()}
	}
	return v.ValidateValidRef(ref, doc)
}

// ValidateValidRef is ValidateRef for a doc already known to be valid JSON
// (its caller decoded it), which it does not check again. On invalid JSON
// the result is undefined, but it does not panic.
func (v *Validator) ValidateValidRef(ref string, doc []byte) []string {
	n, err := v.compiledRef(ref)
	if err != nil {
		return []string{err.Error()}
	}
	var errs []string
	n.checkRaw(bytes.TrimSpace(doc), &rawPath{}, &errs)
	return errs
}

func (v *Validator) resolve(ref string) (any, error) {
	if !strings.HasPrefix(ref, "#/") {
		return nil, fmt.Errorf("unsupported $ref %q", ref)
	}
	var cur any = v.root
	for _, part := range strings.Split(ref[2:], "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("bad $ref %q", ref)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("dangling $ref %q", ref)
		}
	}
	return cur, nil
}

func (v *Validator) check(schema, inst any, path string, errs *[]string) {
	fail := func(format string, args ...any) {
		*errs = append(*errs, path+": "+fmt.Sprintf(format, args...))
	}
	switch s := schema.(type) {
	case bool:
		if !s {
			fail("schema false")
		}
		return
	case map[string]any:
		keys := make([]string, 0, len(s))
		for k := range s {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			v.keyword(s, k, inst, path, errs, fail)
		}
	default:
		fail("schema is %T", schema)
	}
}

func (v *Validator) keyword(s map[string]any, k string, inst any, path string, errs *[]string, fail func(string, ...any)) {
	val := s[k]
	switch k {
	case "$ref":
		target, err := v.resolve(val.(string))
		if err != nil {
			fail("%v", err)
			return
		}
		v.check(target, inst, path, errs)
	case "type":
		var names []any
		if n, ok := val.(string); ok {
			names = []any{n}
		} else {
			names = val.([]any)
		}
		for _, n := range names {
			if hasType(inst, n.(string)) {
				return
			}
		}
		fail("type %v, want %v", typeName(inst), names)
	case "enum":
		for _, e := range val.([]any) {
			if jsonEqual(e, inst) {
				return
			}
		}
		fail("%v not in enum %v", inst, val)
	case "const":
		if !jsonEqual(val, inst) {
			fail("%v != const %v", inst, val)
		}
	case "minimum", "maximum":
		n, ok := inst.(json.Number)
		if !ok {
			return
		}
		if c := compareNumbers(n, val.(json.Number)); (k == "minimum" && c < 0) || (k == "maximum" && c > 0) {
			lim, _ := new(big.Rat).SetString(val.(json.Number).String())
			fail("%s violates %s %s", n, k, lim.RatString())
		}
	case "required":
		m, ok := inst.(map[string]any)
		if !ok {
			return
		}
		for _, r := range val.([]any) {
			if _, ok := m[r.(string)]; !ok {
				fail("missing required %q", r)
			}
		}
	case "properties":
		m, ok := inst.(map[string]any)
		if !ok {
			return
		}
		for name, sub := range val.(map[string]any) {
			if x, ok := m[name]; ok {
				v.check(sub, x, path+"."+name, errs)
			}
		}
	case "additionalProperties":
		m, ok := inst.(map[string]any)
		if !ok {
			return
		}
		props, _ := s["properties"].(map[string]any)
		for name, x := range m {
			if _, known := props[name]; !known {
				v.check(val, x, path+"."+name, errs)
			}
		}
	case "items":
		a, ok := inst.([]any)
		if !ok {
			return
		}
		for i, x := range a {
			v.check(val, x, fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case "allOf":
		for _, sub := range val.([]any) {
			v.check(sub, inst, path, errs)
		}
	case "oneOf", "anyOf":
		passed := 0
		for _, sub := range val.([]any) {
			var sink []string
			v.check(sub, inst, path, &sink)
			if len(sink) == 0 {
				passed++
			}
		}
		if (k == "oneOf" && passed != 1) || (k == "anyOf" && passed == 0) {
			fail("%s: %d branches passed", k, passed)
		}
	default:
		if !annotationKeywords[k] {
			fail("unsupported schema keyword %q", k)
		}
	}
}

func hasType(inst any, name string) bool {
	switch name {
	case "object":
		_, ok := inst.(map[string]any)
		return ok
	case "array":
		_, ok := inst.([]any)
		return ok
	case "string":
		_, ok := inst.(string)
		return ok
	case "boolean":
		_, ok := inst.(bool)
		return ok
	case "null":
		return inst == nil
	case "number":
		_, ok := inst.(json.Number)
		return ok
	case "integer":
		n, ok := inst.(json.Number)
		if !ok {
			return false
		}
		if _, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
			return true
		}
		r, ok := new(big.Rat).SetString(n.String())
		return ok && r.IsInt()
	}
	return false
}

// compareNumbers compares two JSON numbers exactly: by their float64
// values when these are far apart, else as rationals.
func compareNumbers(a, b json.Number) int {
	x, errX := strconv.ParseFloat(a.String(), 64)
	y, errY := strconv.ParseFloat(b.String(), 64)
	if errX == nil && errY == nil && x-y > 1 {
		return 1
	}
	if errX == nil && errY == nil && y-x > 1 {
		return -1
	}
	rx, _ := new(big.Rat).SetString(a.String())
	ry, _ := new(big.Rat).SetString(b.String())
	if rx == nil || ry == nil {
		return 0
	}
	return rx.Cmp(ry)
}

func typeName(inst any) string {
	for _, n := range []string{"null", "boolean", "integer", "number", "string", "array", "object"} {
		if hasType(inst, n) {
			return n
		}
	}
	return fmt.Sprintf("%T", inst)
}

func jsonEqual(a, b any) bool {
	na, oka := a.(json.Number)
	nb, okb := b.(json.Number)
	if oka && okb {
		x, _ := new(big.Rat).SetString(na.String())
		y, _ := new(big.Rat).SetString(nb.String())
		return x != nil && y != nil && x.Cmp(y) == 0
	}
	return reflect.DeepEqual(a, b)
}
