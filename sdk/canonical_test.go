package sdk

import (
	"encoding/json"
	"math/big"
	"testing"
)

func TestCanonicalNumber(t *testing.T) {
	tests := []struct{ in, want string }{
		{"12", "12"}, {"12.0", "12"}, {"1.2e1", "12"}, {"120e-1", "12"}, {"12.000E+0", "12"},
		{"-0", "0"}, {"0.0", "0"}, {"0e7", "0"}, {"1200", "12e2"}, {"1.5", "15e-1"}, {"-0.001", "-1e-3"},
		{"9007199254740993", "9007199254740993"}, {"1e999999999999999999999", "1e999999999999999999999"},
		{"10e999999999999999999999", "1e1000000000000000000000"},
	}
	for _, tt := range tests {
		if got, err := CanonicalNumber(tt.in); err != nil || got != tt.want {
			t.Errorf("CanonicalNumber(%s) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, bad := range []string{"", "-", "1.", ".5", "1e", "1e+", "x", "--1", "1.2.3"} {
		if _, err := CanonicalNumber(bad); err == nil {
			t.Errorf("CanonicalNumber(%q) succeeded", bad)
		}
	}
}

func TestCanonical(t *testing.T) {
	v, err := DecodeJSON([]byte(`{"b":[1.0,"x\u0001\"",null,true],"a":{"z":1,"y":2}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := Canonical(v)
	if want := `{"a":{"y":2,"z":1},"b":[1,"x\u0001\"",null,true]}`; err != nil || string(got) != want {
		t.Errorf("Canonical = %s, %v; want %s", got, err, want)
	}
}

// FuzzCanonicalNumber checks that equal canonical forms mean equal exact
// values, using math/big as the reference.
func FuzzCanonicalNumber(f *testing.F) {
	for _, s := range []string{"12", "12.0", "1.2e1", "-0", "0.001", "1e5", "123.4500e-2"} {
		f.Add(s, "12")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !json.Valid([]byte(a)) || !json.Valid([]byte(b)) || len(a) > 40 || len(b) > 40 {
			return
		}
		ca, errA := CanonicalNumber(a)
		cb, errB := CanonicalNumber(b)
		ra, okA := new(big.Rat).SetString(a)
		rb, okB := new(big.Rat).SetString(b)
		if errA != nil || errB != nil || !okA || !okB {
			return
		}
		if (ca == cb) != (ra.Cmp(rb) == 0) {
			t.Fatalf("%s → %s, %s → %s, but values equal = %v", a, ca, b, cb, ra.Cmp(rb) == 0)
		}
	})
}

func TestIsKeyField(t *testing.T) {
	kf := []string{"idempotency_key", "Request-ID"}
	for name, want := range map[string]bool{
		"idempotency_key": true, "Idempotency-Key": true, "IDEMPOTENCY_KEY": true, "request_id": true,
		"idempotencykey": false, "key": false, "": false,
	} {
		if got := IsKeyField(name, kf); got != want {
			t.Errorf("IsKeyField(%q) = %v", name, got)
		}
	}
}
