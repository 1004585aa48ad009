package canon

import "testing"

func TestMatchBytesAgreesWithMatch(t *testing.T) {
	names := []string{"idempotency_key", "Idempotency-Key", "IDEMPOTENCY_KEY", "idempotency", "idempotency_keys", "ıdempotency_key", "İDEMPOTENCY_KEY", "idempotency\u212akey", "idempotency_\u212aey", "", "-", "_"}
	for _, kf := range []KeyFields{{}, ParseKeyFields([]string{"a-b", "ß"})} {
		for _, n := range append(names, "A_B", "a-B", "ẞ", "ss") {
			if got, want := kf.matchBytes([]byte(n)), kf.Match(n); got != want {
				t.Errorf("%v: matchBytes(%q) = %v, Match = %v", kf.Names(), n, got, want)
			}
		}
	}
}

func FuzzKeyFieldMatch(f *testing.F) {
	f.Add("request-id", "REQUEST_ID")
	f.Add("idempotency_key", "Idempotency-Key")
	f.Fuzz(func(t *testing.T, field, name string) {
		kf := ParseKeyFields([]string{field})
		if got, want := kf.matchBytes([]byte(name)), kf.Match(name); got != want {
			t.Fatalf("field %q name %q: matchBytes %v, Match %v", field, name, got, want)
		}
	})
}
