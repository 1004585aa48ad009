package neardup

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
	"golang.org/x/text/unicode/norm"
)

func FuzzSimilar(f *testing.F) {
	for _, tc := range similarCases {
		f.Add([]byte(tc.earlier), []byte(tc.later))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab := compare(a, b, nil)
		ba := compare(b, a, nil)
		if ab != ba {
			t.Fatalf("not symmetric: %q vs %q: %+v / %+v", a, b, ab, ba)
		}
		if !compare(a, a, nil).Similar || !compare(b, b, nil).Similar {
			t.Fatalf("not reflexive")
		}
		if !json.Valid(a) || !json.Valid(b) {
			return
		}
		// Canonically equal values are always similar.
		ca, errA := canon.Canonical(a)
		cb, errB := canon.Canonical(b)
		if errA == nil && errB == nil {
			if string(ca) == string(cb) && !ab.Similar {
				t.Fatalf("canonically equal but not similar: %q vs %q", a, b)
			}
			if !Similar(a, ca) {
				t.Fatalf("not similar to its canonical form: %q vs %q", a, ca)
			}
		}
	})
}

// transform rewrites node n of d with behaviour §4.6 transformations chosen by
// the bits of ops, so the result must stay similar to the input.
func transform(dst []byte, d *canon.Doc, n, depth int, ops []byte) []byte {
	op := byte(0)
	if len(ops) > 0 {
		op = ops[(n+depth)%len(ops)]
	}
	if depth > 200 {
		return d.AppendCanonical(dst, n)
	}
	switch d.Kind(n) {
	case canon.Null:
		if op&1 != 0 {
			return append(dst, `""`...)
		}
		return append(dst, "null"...)
	case canon.True, canon.False:
		return d.AppendCanonical(dst, n)
	case canon.Number:
		if op&1 != 0 {
			return canon.AppendString(dst, d.NumberText(n))
		}
		return append(dst, d.NumberText(n)...)
	case canon.String:
		s := d.Str(n)
		if op%5 != 0 {
			// Transform the text; lone surrogates and invalid bytes
			// compare as U+FFFD, so replacing them keeps similarity.
			s = canon.AppendValid(nil, s)
		}
		switch op % 5 {
		case 1:
			s = bytes.ToUpper(s) // ASCII letters only matter; others fold alike
		case 2:
			s = append([]byte(" "), s...)
		case 3:
			s = append(append([]byte(nil), s...), "\u200b\u00ad"...)
		case 4:
			s = norm.NFD.Bytes(s)
		}
		return canon.AppendString(dst, s)
	case canon.Array:
		es := d.Elems(n, nil)
		dst = append(dst, '[')
		reverse := op&2 != 0
		for i := range es {
			if i > 0 {
				dst = append(dst, ',')
			}
			if reverse {
				dst = d.AppendCanonical(dst, int(es[len(es)-1-i]))
			} else {
				dst = transform(dst, d, int(es[i]), depth+1, ops)
			}
		}
		return append(dst, ']')
	default:
		ms := d.Members(n, nil)
		if op&4 != 0 && len(ms) >= 2 {
			ms = ms[1:]
		}
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = canon.AppendString(dst, d.Str(int(m)))
			dst = append(dst, ':')
			dst = transform(dst, d, int(m)+1, depth+1, ops)
		}
		return append(dst, '}')
	}
}

func FuzzSimilarTransformed(f *testing.F) {
	for _, tc := range similarCases {
		f.Add([]byte(tc.earlier), []byte{1, 2, 3, 4, 5, 6, 7})
	}
	f.Add([]byte(`{"a":[1,"x",null,{"b":"Straße","c":2}],"d":"1e3"}`), []byte{0xff, 0})
	f.Add([]byte(`{"a":"Ada\ud83d","b":{"note":null},"c":"\udc00x"}`), []byte{1, 5, 4})
	f.Add([]byte("{\"a\":\"Zo\xc3\xa9\xff\"}"), []byte{4, 1})
	f.Fuzz(func(t *testing.T, in, ops []byte) {
		d, err := canon.Parse(in)
		if err != nil {
			return
		}
		out := transform(nil, d, 0, 0, ops)
		r := Compare(in, out)
		if !r.Similar && !r.Undecided {
			t.Fatalf("transformed input not similar:\n%s\n%s", in, out)
		}
	})
}
