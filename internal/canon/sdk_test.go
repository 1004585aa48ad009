package canon_test

// The guest SDK is its own dependency-free module, so it keeps its own copy
// of the canonical form. These tests prove that copy partitions JSON values
// exactly as canon (the reference) does. The SDK's text differs on purpose
// (CanonicalNumber writes 1200 as 12e2, control characters are written as
// \u00xx); what must agree is which values are equal. For a canonicaliser
// S and the reference C it is enough that, for every input x,
//
//	C(S(x)) == C(x)   (S never changes the value: it joins nothing C separates)
//	S(C(x)) == S(x)   (S's answer depends on C(x) only: it separates nothing C joins)
//
// for then C(a) == C(b) ⇔ S(a) == S(b).

import (
	"bytes"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/wire"
	"github.com/cuonztech/agent-harness/sdk"
)

var sdkSeeds = []string{
	`{"a":1,"b":[1,2.50,{"z":null,"y":"\u00e9\n\"x\/"}],"a":3}`,
	`12`, `12.0`, `1.2e1`, `120e-1`, `-0`, `0.0e7`, `1200`, `1e21`, `1e20`, `123456789012345678901234`,
	`0.000001`, `0.0000001`, `1e999999999999999999999`, `-1.5E-0000000000000000007`, `9007199254740993`,
	`"\ud83d\ude00"`, `[[[]]]`, `{}`, `[]`, `""`, `{"\u0000":"\t\b\f\r\n\u001f\u007f\u2028"}`,
	`{"Idempotency-Key":"k","amount":12.50,"items":[{"sku":"A","qty":2}]}`,
	`"\ud800"`, "\"\xff\"", `[1,]`, `{"a" 1}`, ` true `, `null`, `1]`, `{}}`, `1 2`,
	`{"room":"1","Room":"12"}`, `{"b":1,"a":2,"b":3}`, `{"é":1,"e":2,"z":3}`,
}

// FuzzSDKCanonicalNumber: sdk.CanonicalNumber and wire.AppendNumber give
// one text per exact value for the same values.
func FuzzSDKCanonicalNumber(f *testing.F) {
	for _, s := range sdkSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, num string) {
		if !wire.IsNumber([]byte(num)) {
			return
		}
		ref := string(wire.AppendNumber(nil, []byte(num)))
		got, err := sdk.CanonicalNumber(num)
		if err != nil {
			t.Fatalf("sdk.CanonicalNumber(%s): %v", num, err)
		}
		if !wire.IsNumber([]byte(got)) {
			t.Fatalf("sdk.CanonicalNumber(%s) = %q, not a JSON number", num, got)
		}
		if back := string(wire.AppendNumber(nil, []byte(got))); back != ref {
			t.Fatalf("%s: sdk %s is the value %s, canon %s", num, got, back, ref)
		}
		if again, err := sdk.CanonicalNumber(ref); err != nil || again != got {
			t.Fatalf("%s: sdk %s, but of canon's %s sdk %s (%v)", num, got, ref, again, err)
		}
	})
}

// sdkForms are the SDK's two canonical forms of one JSON text: the Value
// tree ParseJSON builds (what plugin hooks use) and Canonical of
// DecodeJSON's any.
var sdkForms = []struct {
	name string
	fn   func([]byte) ([]byte, error)
}{
	{"Value.AppendCanonical", func(b []byte) ([]byte, error) {
		v, err := sdk.ParseJSON(b)
		if err != nil {
			return nil, err
		}
		return v.AppendCanonical(nil)
	}},
	{"Canonical(DecodeJSON)", func(b []byte) ([]byte, error) {
		v, err := sdk.DecodeJSON(b)
		if err != nil {
			return nil, err
		}
		return sdk.Canonical(v)
	}},
}

// FuzzSDKCanonical: the SDK's canonical forms partition JSON texts exactly
// as canon.Canonical does. The SDK refuses (an error, which the host counts
// as a plugin failure: the run cannot PASS) only what it documents: strings
// that are not valid Unicode, and nesting deeper than sdk.MaxDepth.
func FuzzSDKCanonical(f *testing.F) {
	for _, s := range sdkSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		ref, refErr := canon.Canonical(in)
		for _, form := range sdkForms {
			got, err := form.fn(in)
			if refErr != nil {
				if err == nil {
					t.Fatalf("%s accepted %q, which canon rejects (%v)", form.name, in, refErr)
				}
				continue
			}
			if err != nil {
				if !sdkRefuses(t, in) {
					t.Fatalf("%s rejected %q: %v", form.name, in, err)
				}
				continue
			}
			back, err := canon.Canonical(got)
			if err != nil || !bytes.Equal(back, ref) {
				t.Fatalf("%s(%q) = %s, which is the value %s (%v); canon: %s", form.name, in, got, back, err, ref)
			}
			again, err := form.fn(ref)
			if err != nil || !bytes.Equal(again, got) {
				t.Fatalf("%s(%q) = %s, but of canon's %s: %s (%v)", form.name, in, got, ref, again, err)
			}
		}
	})
}

// sdkRefuses reports whether valid JSON holds what the SDK documents it
// refuses, anywhere (also in a member a later duplicate replaces): a string
// that is not valid Unicode (canon's decoded text of a lone surrogate or an
// invalid UTF-8 byte is never valid UTF-8), or nesting deeper than
// sdk.MaxDepth.
func sdkRefuses(t *testing.T, in []byte) bool {
	t.Helper()
	d, err := canon.Parse(in)
	if err != nil {
		t.Fatalf("Parse(%q) failed after Canonical succeeded: %v", in, err)
	}
	for n := range d.Len() {
		if d.Kind(n) == canon.String && !utf8.Valid(d.Str(n)) {
			return true
		}
	}
	depth, maxDepth, inString := 0, 0, false
	for i := 0; i < len(in); i++ {
		switch c := in[i]; {
		case inString && c == '\\':
			i++
		case c == '"':
			inString = !inString
		case !inString && (c == '{' || c == '['):
			depth++
			maxDepth = max(maxDepth, depth)
		case !inString && (c == '}' || c == ']'):
			depth--
		}
	}
	// encoding/json (DecodeJSON before) stopped at MaxDepth containers,
	// ParseJSON stops one later.
	return maxDepth > sdk.MaxDepth
}

func TestSDKCanonicalSeeds(t *testing.T) {
	// The fuzz targets' seeds run as unit tests too; this adds the cases
	// the SDK refuses on purpose, and a deep value it accepts.
	for _, s := range []string{`"\ud800"`, "\"\xff\"", `{"a":["\udc00x"]}`} {
		for _, form := range sdkForms {
			if _, err := form.fn([]byte(s)); err == nil {
				t.Errorf("%s accepted %q (not valid Unicode)", form.name, s)
			}
		}
	}
	deep := strings.Repeat("[", 1000) + "1.0" + strings.Repeat("]", 1000)
	want, _ := canon.Canonical([]byte(deep))
	for _, form := range sdkForms {
		got, err := form.fn([]byte(deep))
		if err != nil {
			t.Fatalf("%s: %v", form.name, err)
		}
		if back, _ := canon.Canonical(got); !bytes.Equal(back, want) {
			t.Errorf("%s of a 1000-deep array differs", form.name)
		}
	}
}
