package jsonschema

import (
	"errors"
	"testing"
)

// TestDecode: a valid document is unmarshalled; an invalid one is an
// *Invalid whose First names the first problem and counts the others, and
// dst is left alone.
func TestDecode(t *testing.T) {
	schema := []byte(`{"type":"object","required":["a","b"],"properties":{"a":{"type":"integer"},"b":{"type":"integer"}}}`)
	var dst struct{ A, B int }
	if err := Decode(schema, []byte(`{"a":1,"b":2}`), &dst); err != nil || dst.A != 1 || dst.B != 2 {
		t.Fatalf("Decode = %v, %+v", err, dst)
	}
	dst.A = 7
	var invalid *Invalid
	err := Decode(schema, []byte(`{"a":"x"}`), &dst)
	if !errors.As(err, &invalid) {
		t.Fatalf("err = %v, want *Invalid", err)
	}
	if got := invalid.First(" (and %d more)"); got != invalid.Problems[0]+" (and 1 more)" || len(invalid.Problems) != 2 {
		t.Errorf("First = %q (problems %q)", got, invalid.Problems)
	}
	if dst.A != 7 {
		t.Errorf("dst changed to %+v", dst)
	}
	if err := Decode(schema, []byte(`{"a":1}`), &dst); !errors.As(err, &invalid) || invalid.First(" (and %d more)") != invalid.Problems[0] {
		t.Errorf("one problem: %v", err)
	}
}
