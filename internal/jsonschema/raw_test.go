package jsonschema

import (
	"encoding/json"
	"testing"
)

// rawSchema uses every keyword of the subset, under $defs/x.
const rawSchema = `{
  "$defs": {
    "x": {
      "type": "object",
      "required": ["kind", "n"],
      "additionalProperties": false,
      "properties": {
        "kind": {"enum": ["a", "b", 3, null]},
        "n": {"type": "integer", "minimum": 1, "maximum": 1000000},
        "t": {"type": "number", "minimum": 0},
        "c": {"const": {"k": [1, "2"]}},
        "free": {"description": "anything"},
        "list": {"type": "array", "items": {"anyOf": [{"type": "string"}, {"type": "integer", "minimum": 1}]}},
        "one": {"oneOf": [{"type": "string"}, {"enum": ["s", 5]}]},
        "all": {"allOf": [{"type": ["number", "null"]}, {"maximum": 2.5}]},
        "obj": {"type": "object", "additionalProperties": {"type": "boolean"}, "properties": {"x\u00e9": {"const": true}}},
        "self": {"$ref": "#/$defs/x"},
        "no": false
      }
    }
  },
  "$ref": "#/$defs/x"
}`

var rawSeeds = []string{
	`{"kind":"a","n":1}`,
	`{"kind":"c","n":1}`,
	`{"kind":3,"n":1.0}`,
	`{"kind":null,"n":0}`,
	`{"n":1}`,
	`{"kind":"b","n":1000001}`,
	`{"kind":"b","n":2.5}`,
	`{"kind":"b","n":1e2}`,
	`{"kind":"b","n":1,"t":-0.000001}`,
	`{"kind":"b","n":1,"t":0.5}`,
	`{"kind":"b","n":1,"c":{"k":[1,"2"]}}`,
	`{"kind":"b","n":1,"c":{"k":[1.0,"2"]}}`,
	`{"kind":"b","n":1,"c":{"k":[1,2]}}`,
	`{"kind":"b","n":1,"free":{"deep":[1,{"x":"}"}]}}`,
	`{"kind":"b","n":1,"list":["x",2,0]}`,
	`{"kind":"b","n":1,"list":[]}`,
	`{"kind":"b","n":1,"one":"s"}`,
	`{"kind":"b","n":1,"one":5}`,
	`{"kind":"b","n":1,"all":2.5}`,
	`{"kind":"b","n":1,"all":2.6}`,
	`{"kind":"b","n":1,"all":null}`,
	`{"kind":"b","n":1,"obj":{"y":true,"x\u00e9":true}}`,
	`{"kind":"b","n":1,"obj":{"y":1,"xé":false}}`,
	`{"kind":"b","n":1,"self":{"kind":"a","n":2,"self":{"n":1}}}`,
	`{"kind":"b","n":1,"no":1}`,
	`{"kind":"b","n":1,"other":1}`,
	` {"kind" : "a" , "n" : 1 } `,
	`{"kind":"a\"b","n":1}`,
	`[1,2]`,
	`"x"`,
	`null`,
}

// TestValidateRefAgrees: the raw validator (ValidateRef) accepts exactly
// the documents the tree validator (Validate) accepts.
func TestValidateRefAgrees(t *testing.T) {
	v, err := New([]byte(rawSchema))
	if err != nil {
		t.Fatal(err)
	}
	for _, doc := range rawSeeds {
		tree, raw := v.Validate([]byte(doc)), v.ValidateRef("#/$defs/x", []byte(doc))
		if (len(tree) == 0) != (len(raw) == 0) {
			t.Errorf("%s: Validate %q, ValidateRef %q", doc, tree, raw)
		}
	}
}

func FuzzValidateRef(f *testing.F) {
	for _, s := range rawSeeds {
		f.Add([]byte(s))
	}
	v, err := New([]byte(rawSchema))
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		raw := v.ValidateRef("#/$defs/x", doc)
		if !json.Valid(doc) {
			if len(raw) == 0 {
				t.Errorf("invalid JSON accepted")
			}
			return
		}
		// A document with a duplicate member means different things to
		// the two validators (the tree keeps the last); the trace reader
		// decodes with encoding/json first, which also keeps the last.
		if tree := v.Validate(doc); (len(tree) == 0) != (len(raw) == 0) && !hasDuplicateMember(doc) {
			t.Errorf("%s: Validate %q, ValidateRef %q", doc, tree, raw)
		}
	})
}

// hasDuplicateMember reports whether some object in doc repeats a member.
func hasDuplicateMember(doc []byte) bool {
	dup := false
	var walk func(raw []byte)
	walk = func(raw []byte) {
		if len(raw) == 0 || (raw[0] != '{' && raw[0] != '[') {
			return
		}
		seen := map[string]bool{}
		splitJSON(raw, func(key, val []byte) {
			if raw[0] == '{' {
				var name string
				_ = json.Unmarshal(append(append([]byte{'"'}, key...), '"'), &name)
				if seen[name] {
					dup = true
				}
				seen[name] = true
			}
			walk(val)
		})
	}
	var compact []byte
	if b, err := json.Marshal(json.RawMessage(doc)); err == nil {
		compact = b
	}
	walk(compact)
	return dup
}
