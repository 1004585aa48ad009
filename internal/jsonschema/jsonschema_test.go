package jsonschema

import (
	"slices"
	"strings"
	"testing"
)

// TestValidate: each keyword of the subset accepts and refuses as draft
// 2020-12 says, with the message a user sees (the trace reader, `judge`,
// `report` and the campaign print the first one); the raw validator
// (ValidateRef) gives the same messages.
func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name, schema, doc string
		want              []string
	}{
		{"type accepts", `{"type":"string"}`, `"x"`, nil},
		{"type refuses", `{"type":"string"}`, `1`, []string{"$: type integer, want [string]"}},
		{"type list", `{"type":["string","null"]}`, `null`, nil},
		{"integer 1.0", `{"type":"integer"}`, `1.0`, nil},
		{"integer 1e400", `{"type":"integer"}`, `1e400`, nil},
		{"integer 1.5", `{"type":"integer"}`, `1.5`, []string{"$: type number, want [integer]"}},
		{"number is not a string", `{"type":"number"}`, `"1"`, []string{"$: type string, want [number]"}},
		{"enum", `{"enum":["a",3,null]}`, `"b"`, []string{"$: b not in enum [a 3 <nil>]"}},
		{"enum number notation", `{"enum":[3]}`, `3.0`, nil},
		{"const", `{"const":{"k":[1,"2"]}}`, `{"k":[1,2]}`, []string{"$: map[k:[1 2]] != const map[k:[1 2]]"}},
		{"maximum exact beyond float64", `{"maximum":9007199254740992}`, `9007199254740993`, []string{"$: 9007199254740993 violates maximum 9007199254740992"}},
		{"maximum beyond float64 precision", `{"maximum":100}`, `100.00000000000000001`, []string{"$: 100.00000000000000001 violates maximum 100"}},
		{"integer beyond float64 precision", `{"type":"integer"}`, `1.0000000000000000001`, []string{"$: type number, want [integer]"}},
		{"maximum at the limit", `{"maximum":9007199254740992}`, `9007199254740992`, nil},
		{"minimum fraction", `{"minimum":0.1}`, `0.09999999999999999999`, []string{"$: 0.09999999999999999999 violates minimum 1/10"}},
		{"minimum ignores strings", `{"minimum":1}`, `"0"`, nil},
		{"required", `{"required":["a","b"]}`, `{"a":1}`, []string{`$: missing required "b"`}},
		{"properties path", `{"properties":{"a":{"properties":{"b":{"type":"string"}}}}}`, `{"a":{"b":1}}`, []string{"$.a.b: type integer, want [string]"}},
		{"additionalProperties false", `{"properties":{"a":true},"additionalProperties":false}`, `{"a":1,"z":2}`, []string{"$.z: schema false"}},
		{"additionalProperties schema", `{"additionalProperties":{"type":"boolean"}}`, `{"z":2}`, []string{"$.z: type integer, want [boolean]"}},
		{"items path", `{"items":{"type":"string"}}`, `["a",1]`, []string{"$[1]: type integer, want [string]"}},
		{"allOf", `{"allOf":[{"type":"number"},{"maximum":2}]}`, `3`, []string{"$: 3 violates maximum 2"}},
		{"oneOf none", `{"oneOf":[{"type":"string"},{"type":"null"}]}`, `1`, []string{"$: oneOf: 0 branches passed"}},
		{"oneOf two", `{"oneOf":[{"type":"number"},{"type":"integer"}]}`, `1`, []string{"$: oneOf: 2 branches passed"}},
		{"anyOf", `{"anyOf":[{"type":"string"},{"type":"null"}]}`, `1`, []string{"$: anyOf: 0 branches passed"}},
		{"local $ref", `{"$defs":{"s":{"type":"string"}},"properties":{"a":{"$ref":"#/$defs/s"}}}`, `{"a":1}`, []string{"$.a: type integer, want [string]"}},
		{"dangling $ref", `{"$ref":"#/$defs/none"}`, `1`, []string{`$: dangling $ref "#/$defs/none"`}},
		{"remote $ref", `{"$ref":"https://example.com/s.json"}`, `1`, []string{`$: unsupported $ref "https://example.com/s.json"`}},
		{"annotations ignored", `{"$schema":"https://json-schema.org/draft/2020-12/schema","$id":"x","title":"t","description":"d"}`, `1`, nil},
		{"unknown keyword refused", `{"pattern":"^a"}`, `"b"`, []string{`$: unsupported schema keyword "pattern"`}},
		{"every problem", `{"required":["a"],"properties":{"b":{"type":"string"}}}`, `{"b":1}`, []string{"$.b: type integer, want [string]", `$: missing required "a"`}},
		{"not JSON", `{}`, `{"a":}`, []string{"not JSON: invalid character '}' looking for beginning of value"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			v, err := New([]byte(tt.schema))
			if err != nil {
				t.Fatal(err)
			}
			if got := v.Validate([]byte(tt.doc)); !slices.Equal(got, tt.want) {
				t.Errorf("Validate(%s) = %q, want %q", tt.doc, got, tt.want)
			}
			if strings.Contains(tt.schema, "$") {
				return // its references point into the root
			}
			w, err := New([]byte(`{"$defs":{"x":` + tt.schema + `}}`))
			if err != nil {
				t.Fatal(err)
			}
			if got := w.ValidateRef("#/$defs/x", []byte(tt.doc)); !slices.Equal(got, tt.want) {
				t.Errorf("ValidateRef(%s) = %q, want %q", tt.doc, got, tt.want)
			}
		})
	}
}

// TestNewRefusesBadSchemas: a schema that is not one JSON object is an
// error of New.
func TestNewRefusesBadSchemas(t *testing.T) {
	for _, schema := range []string{``, `{`, `[1]`, `{} {}`} {
		if _, err := New([]byte(schema)); err == nil {
			t.Errorf("New(%q) accepted", schema)
		}
	}
}
