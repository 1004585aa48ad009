package canon

import (
	"bytes"
	"encoding/json"
	"math/big"
	"testing"
	"unicode/utf8"
)

var fuzzSeeds = []string{
	`{"a":1,"b":[1,2.50,{"z":null,"y":"\u00e9\n\"x\/"}],"a":3}`,
	`12`, `12.0`, `1.2e1`, `-0`, `1e999999999`, `"\ud83d\ude00"`, `[[[]]]`, `{}`,
	`{"Idempotency-Key":"k","amount":12.50,"items":[{"sku":"A","qty":2}]}`,
	`"\ud800"`, "\"\xff\"", `[1,]`, `{"a" 1}`, ` true `, `null`, `{"\u0000":"\t"}`,
}

func FuzzCanonical(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonical(in)
		if err != nil {
			if json.Valid(in) && utf8.Valid(in) && !bytes.Contains(bytes.ToLower(in), []byte(`\ud`)) {
				t.Fatalf("Canonical rejected valid JSON %q: %v", in, err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("Canonical accepted invalid JSON %q", in)
		}
		if !json.Valid(out) || !utf8.Valid(out) {
			t.Fatalf("Canonical(%q) = %q: not valid JSON/UTF-8", in, out)
		}
		again, err := Canonical(out)
		if err != nil || !bytes.Equal(again, out) {
			t.Fatalf("not idempotent: %q -> %q -> %q (%v)", in, out, again, err)
		}
		// Member order permutation: rebuild the top-level object reversed.
		d, err := Parse(in)
		if err != nil {
			t.Fatalf("Parse failed after Canonical succeeded: %v", err)
		}
		if d.Kind(0) == Object {
			ms := d.Members(0, nil)
			rev := []byte{'{'}
			for i := len(ms) - 1; i >= 0; i-- {
				if i != len(ms)-1 {
					rev = append(rev, ',')
				}
				rev = AppendString(rev, d.Str(int(ms[i])))
				rev = append(rev, ':')
				rev = d.AppendCanonical(rev, int(ms[i])+1)
			}
			rev = append(rev, '}')
			got, err := Canonical(rev)
			if err != nil || !bytes.Equal(got, out) {
				t.Fatalf("permuted %q -> %q, want %q (%v)", rev, got, out, err)
			}
		}
	})
}

func FuzzOperation(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add("pay", []byte(s))
	}
	f.Fuzz(func(t *testing.T, tool string, args []byte) {
		op, err := Operation(tool, args, KeyFields{})
		if err != nil {
			return
		}
		if !json.Valid(op.Canonical) {
			t.Fatalf("Operation(%q).Canonical = %q: invalid JSON", args, op.Canonical)
		}
		if len(op.Key) != 64 {
			t.Fatalf("Key = %q", op.Key)
		}
		// The canonical remainder is its own operation with no keys left.
		op2, err := Operation(tool, op.Canonical, KeyFields{})
		if err != nil || op2.Key != op.Key || len(op2.Keys) != 0 {
			t.Fatalf("re-operation of %q: %+v, %v (was %+v)", op.Canonical, op2, err, op)
		}
	})
}

// ratOf parses a JSON number exactly; ok is false for exponents too large
// to expand cheaply.
func ratOf(s []byte) (*big.Rat, bool) {
	if i := bytes.IndexAny(s, "eE"); i >= 0 && len(s)-i > 4 {
		return nil, false
	}
	r, ok := new(big.Rat).SetString(string(s))
	return r, ok
}

func FuzzNumber(f *testing.F) {
	for _, p := range [][2]string{{"12", "1.2e1"}, {"-0", "0"}, {"9007199254740992", "9007199254740993"}, {"0.1", "1e-1"}, {"100", "1e2"}, {"1e21", "1000000000000000000000"}} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		if !IsNumber(a) || !IsNumber(b) {
			return
		}
		ca, cb := AppendNumber(nil, a), AppendNumber(nil, b)
		if !IsNumber(ca) || !bytes.Equal(AppendNumber(nil, ca), ca) {
			t.Fatalf("%s -> %s: not a canonical number", a, ca)
		}
		ra, oka := ratOf(a)
		rb, okb := ratOf(b)
		if !oka || !okb {
			return
		}
		rca, ok := ratOf(ca)
		if ok && rca.Cmp(ra) != 0 {
			t.Fatalf("%s -> %s changed the value", a, ca)
		}
		if (ra.Cmp(rb) == 0) != bytes.Equal(ca, cb) {
			t.Fatalf("%s (%s) vs %s (%s): exact equality %v", a, ca, b, cb, ra.Cmp(rb) == 0)
		}
	})
}
