package neardup

import (
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/builtin/canon"
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
