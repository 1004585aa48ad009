package canon

import (
	"bytes"
	"encoding/json"
	"math/big"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/wire"
)

var fuzzSeeds = []string{
	`{"a":1,"b":[1,2.50,{"z":null,"y":"\u00e9\n\"x\/"}],"a":3}`,
	`12`, `12.0`, `1.2e1`, `-0`, `1e999999999`, `"\ud83d\ude00"`, `[[[]]]`, `{}`,
	`{"Idempotency-Key":"k","amount":12.50,"items":[{"sku":"A","qty":2}]}`,
	`"\ud800"`, "\"\xff\"", `[1,]`, `{"a" 1}`, ` true `, `null`, `{"\u0000":"\t"}`,
	`{"guest":"Ada\ud83d","idempotency_key":"k1"}`, `"\udc00\ud800"`, "\"\xed\xa0\x80\"",
	"{\"a\xff\":\"\\ud83d\xc0\x80\"}", `"\ud83d\ud83d\ude00"`, "\"\xff\\u00e9\xfe\"",
	`{"room":"1","Room":"12"}`, `{"a":{"K":1,"\u212a":2}}`,
}

func FuzzCanonical(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := Canonical(in)
		if err != nil {
			// Lone surrogate escapes and invalid UTF-8 are accepted too.
			if json.Valid(in) {
				t.Fatalf("Canonical rejected valid JSON %q: %v", in, err)
			}
			return
		}
		if !json.Valid(in) {
			t.Fatalf("Canonical accepted invalid JSON %q", in)
		}
		// Invalid UTF-8 bytes are kept verbatim (unless a duplicate name
		// dropped them), never introduced.
		if !json.Valid(out) || (utf8.Valid(in) && !utf8.Valid(out)) {
			t.Fatalf("Canonical(%q) = %q: not valid JSON, or invalid UTF-8 introduced", in, out)
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
		// CaseClash is set exactly when some object of the canonical
		// remainder has two names that fold alike (brute force).
		if clash := bruteCaseClash(op.Canonical); clash != (op.CaseClash[0] != "") {
			t.Fatalf("Operation(%q).CaseClash = %q, brute force says %v", args, op.CaseClash, clash)
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
		if !wire.IsNumber(a) || !wire.IsNumber(b) {
			return
		}
		ca, cb := wire.AppendNumber(nil, a), wire.AppendNumber(nil, b)
		if !wire.IsNumber(ca) || !bytes.Equal(wire.AppendNumber(nil, ca), ca) {
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

// units decodes the JSON string literal lit (known valid JSON) the simple
// way, into its sequence of units: a Unicode scalar value, a lone
// surrogate's code unit (0xD800–0xDFFF), or an invalid UTF-8 byte b as
// -1-b. Two strings are the same value exactly when their units are equal.
func units(lit []byte) []int32 {
	var out []int32
	s := lit[1 : len(lit)-1]
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				out = append(out, -1-int32(s[i]))
			} else {
				out = append(out, r)
			}
			i += size
			continue
		}
		if s[i+1] != 'u' {
			out = append(out, int32(map[byte]byte{'"': '"', '\\': '\\', '/': '/', 'b': '\b', 'f': '\f', 'n': '\n', 'r': '\r', 't': '\t'}[s[i+1]]))
			i += 2
			continue
		}
		r, _ := hex4(s, i+2)
		i += 6
		if r >= 0xD800 && r < 0xDC00 && i+6 <= len(s) && s[i] == '\\' && s[i+1] == 'u' {
			if lo, _ := hex4(s, i+2); lo >= 0xDC00 && lo <= 0xDFFF {
				r = 0x10000 + (r-0xD800)<<10 + (lo - 0xDC00)
				i += 6
			}
		}
		out = append(out, r)
	}
	return out
}

// FuzzStringIdentity checks behaviour §4.1 for strings: two strings have the
// same canonical form exactly when their units (scalar values, lone
// surrogates, invalid bytes) are equal.
func FuzzStringIdentity(f *testing.F) {
	for _, p := range [][2]string{
		{`"\ud800"`, "\"\xed\xa0\x80\""}, {`"\ud800"`, `"\ufffd"`}, {`"\ud83d\ude00"`, `"😀"`},
		{`"\ud800"`, `"\uD800"`}, {"\"\xff\"", `"\u00ff"`}, {"\"\xff\"", "\"\xfe\""},
		{`"\ud800"`, `"\\ud800"`}, {`"\ud800x"`, `"\ud801x"`}, {"\"\xff\xed\"", "\"\xed\xff\""},
	} {
		f.Add([]byte(p[0]), []byte(p[1]))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ca, err := Canonical(a)
		if err != nil || ca[0] != '"' {
			return
		}
		cb, err := Canonical(b)
		if err != nil || cb[0] != '"' {
			return
		}
		ua, ub := units(trimWS(a)), units(trimWS(b))
		if slices.Equal(ua, ub) != bytes.Equal(ca, cb) {
			t.Fatalf("%q (%q, units %x) vs %q (%q, units %x): equal units %v, equal canonical forms %v",
				a, ca, ua, b, cb, ub, slices.Equal(ua, ub), bytes.Equal(ca, cb))
		}
		if !slices.Equal(units(ca), ua) {
			t.Fatalf("Canonical(%q) = %q changed the units: %x, want %x", a, ca, units(ca), ua)
		}
	})
}

// bruteCaseClash compares every pair of member names of every object.
func bruteCaseClash(canonical []byte) bool {
	d, err := Parse(canonical)
	if err != nil {
		return false
	}
	for i := range d.Len() {
		if d.Kind(i) != Object {
			continue
		}
		var names [][]byte
		for c := i + 1; c < d.End(i); c = d.End(c + 1) {
			names = append(names, d.Str(c))
		}
		for x := range names {
			for y := range x {
				if !bytes.Equal(names[x], names[y]) && bytes.EqualFold(names[x], names[y]) {
					return true
				}
			}
		}
	}
	return false
}
