package sdk

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestParseJSON(t *testing.T) {
	tests := []struct{ in, canonical string }{
		{`{"b":1,"a":[true,false,null,"x"]}`, `{"a":[true,false,null,"x"],"b":1}`},
		{` {"a":1,"a":2} `, `{"a":2}`},
		{`"\u00e9\ud83d\ude00\n\"\\\/"`, `"é😀\u000a\"\\/"`},
		{`[1.50,-0,1e2,0.001]`, `[15e-1,0,1e2,1e-3]`},
		{`{}`, `{}`}, {`[]`, `[]`}, {`""`, `""`},
	}
	for _, tt := range tests {
		v, err := ParseJSON([]byte(tt.in))
		if err != nil {
			t.Errorf("ParseJSON(%s): %v", tt.in, err)
			continue
		}
		got, err := v.AppendCanonical(nil)
		if err != nil || string(got) != tt.canonical {
			t.Errorf("canonical(%s) = %s, %v; want %s", tt.in, got, err, tt.canonical)
		}
	}
	for _, bad := range []string{``, `{`, `[1,]`, `{"a"}`, `01`, `1.`, `-`, `"\ud800"`, `"\udc00x"`, "\"\xff\"", "\"a\x01\"", `tru`, `1 2`, `{"a":1,}`, `"\x"`} {
		if _, err := ParseJSON([]byte(bad)); err == nil {
			t.Errorf("ParseJSON(%q) succeeded", bad)
		}
	}
	deep := strings.Repeat("[", MaxDepth+2) + strings.Repeat("]", MaxDepth+2)
	if _, err := ParseJSON([]byte(deep)); err == nil {
		t.Error("ParseJSON accepted nesting beyond MaxDepth")
	}
}

func TestWithoutKeyFields(t *testing.T) {
	v, _ := ParseJSON([]byte(`{"a":1,"Idempotency-Key":"x","b":{"idempotency_key":"nested stays"}}`))
	got, _ := v.WithoutKeyFields([]string{"idempotency_key"}).AppendCanonical(nil)
	if want := `{"a":1,"b":{"idempotency_key":"nested stays"}}`; string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if len(v.Members) != 3 {
		t.Error("WithoutKeyFields changed its receiver")
	}
}

// decodeStd is the reference decoding: encoding/json with exact numbers.
func decodeStd(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// FuzzParseJSON checks ParseJSON against encoding/json: it accepts only
// valid JSON, accepts all valid JSON with valid Unicode, and its canonical
// form equals the one built from encoding/json's decoding.
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`{"a":[1,2.0,"x"],"b":null}`, `"\u00e9"`, `[{"a":1,"a":2}]`, `-0.0e+1`, `{"":true}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := ParseJSON(b)
		valid := json.Valid(b)
		if err == nil && !valid {
			t.Fatalf("accepted invalid JSON %q", b)
		}
		if err != nil {
			if valid && utf8.Valid(b) && !strings.Contains(strings.ToLower(string(b)), `\ud`) {
				t.Fatalf("rejected valid JSON %q: %v", b, err)
			}
			return
		}
		got, err := v.AppendCanonical(nil)
		if err != nil {
			t.Fatal(err)
		}
		ref, err := decodeStd(b)
		if err != nil {
			t.Fatal(err)
		}
		want, err := Canonical(ref)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Fatalf("canonical %s, reference %s", got, want)
		}
	})
}
