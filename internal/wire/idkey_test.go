package wire

import (
	"math/big"
	"strconv"
	"strings"
	"testing"
)

func TestIDKeyNumbers(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"fraction zero", `2`, `2.0`, true},
		{"exponent zero", `2`, `2e0`, true},
		{"negative exponent", `2`, `20e-1`, true},
		{"fraction and exponent", `2`, `0.2e1`, true},
		{"upper-case E and plus", `2`, `0.2E+1`, true},
		{"many trailing zeros", `2`, `2.000000000000000000000000000000000000000000000000`, true},
		{"minus zero", `-0`, `0`, true},
		{"minus zero fraction", `-0.0e5`, `0`, true},
		{"negative", `-2`, `-2.0`, true},
		{"sign matters", `-2`, `2`, false},
		{"fraction differs", `2`, `2.5`, false},
		{"2^53 and 2^53+1", `9007199254740992`, `9007199254740993`, false},
		{"2^53+1 spelled twice", `9007199254740993`, `9007199254740993.0`, true},
		{"beyond int64", `123456789012345678901234567890`, `1.2345678901234567890123456789e29`, true},
		{"beyond plain digits", `1` + strings.Repeat("0", 60), `1e60`, true},
		{"beyond plain digits differs", `1` + strings.Repeat("0", 60), `1e61`, false},
		{"huge exponent", `1e99999999999999999999999`, `10e99999999999999999999998`, true},
		{"huge exponent differs", `1e99999999999999999999999`, `1e99999999999999999999998`, false},
		{"huge negative exponent", `1e-99999999999999999999999`, `0.1e-99999999999999999999998`, true},
		{"small", `0.001`, `1e-3`, true},
		{"int vs string", `2`, `"2"`, false},
		{"string escapes", `"a"`, `"\u0061"`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ka, kb := IDKey([]byte(tt.a)), IDKey([]byte(tt.b))
			if got := ka == kb; got != tt.same {
				t.Errorf("IDKey(%s)=%q, IDKey(%s)=%q: equal %v, want %v", tt.a, ka, tt.b, kb, got, tt.same)
			}
		})
	}
}

func TestIDKeyHugeExponentIsSmall(t *testing.T) {
	k := IDKey([]byte(`1e1000000000000`))
	if len(k) > 40 {
		t.Errorf("key of 1e1000000000000 is %d bytes: %.60q", len(k), k)
	}
}

func exactRat(s string) *big.Rat {
	if !Valid([]byte(s)) || s == "" || !(s[0] == '-' || isDigit(s[0])) || strings.TrimSpace(s) != s {
		return nil
	}
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		e, err := strconv.ParseInt(s[i+1:], 10, 32)
		if err != nil || e > 2000 || e < -2000 {
			return nil
		}
	}
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		return nil
	}
	return r
}

// FuzzIDKey checks the property of numeric id keys: two numbers get the
// same key exactly when their exact decimal values are equal.
func FuzzIDKey(f *testing.F) {
	for _, p := range [][2]string{
		{`2`, `2.0`}, {`2`, `20e-1`}, {`0.2e1`, `2E0`}, {`-0`, `0.0`}, {`2`, `2.5`},
		{`9007199254740992`, `9007199254740993`}, {`1e60`, `1` + strings.Repeat("0", 60)},
		{`1e40`, `10000000000000000000000000000000000000000`}, {`1e41`, `1e+41`}, {`-1.50`, `-15e-1`},
	} {
		f.Add(p[0], p[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		ra, rb := exactRat(a), exactRat(b)
		if ra == nil || rb == nil {
			return
		}
		ka, kb := IDKey([]byte(a)), IDKey([]byte(b))
		if (ka == kb) != (ra.Cmp(rb) == 0) {
			t.Fatalf("IDKey(%s)=%q, IDKey(%s)=%q, but values equal: %v", a, ka, b, kb, ra.Cmp(rb) == 0)
		}
	})
}

// FuzzIDKeySpellings writes one value in two spellings (the decimal point
// moved, the exponent compensating, zeros added) and checks that they get
// one key, and that a value one unit in the last digit away does not.
func FuzzIDKeySpellings(f *testing.F) {
	f.Add(uint64(2), int16(0), uint8(1), uint8(0), false)
	f.Add(uint64(9007199254740993), int16(0), uint8(0), uint8(3), false)
	f.Add(uint64(15), int16(-1), uint8(2), uint8(1), true)
	f.Add(uint64(1), int16(60), uint8(0), uint8(0), false)
	f.Fuzz(func(t *testing.T, mant uint64, exp int16, point, zeros uint8, neg bool) {
		sign := ""
		if neg {
			sign = "-"
		}
		m := strconv.FormatUint(mant, 10)
		a := sign + m + "e" + strconv.Itoa(int(exp))
		// b: mantissa with zeros appended, the point moved left by point.
		d := m + strings.Repeat("0", int(zeros%50))
		p := int(point) % (len(d) + 1)
		ip := strings.TrimLeft(d[:len(d)-p], "0")
		if ip == "" {
			ip = "0"
		}
		b := sign + ip
		if p > 0 {
			b += "." + d[len(d)-p:]
		}
		// b's value is mant × 10^(zeros − point); the exponent makes it a's.
		be := int(exp) - int(zeros%50) + p
		b += "E" + strconv.Itoa(be)
		if !Valid([]byte(b)) {
			t.Fatalf("built an invalid number %s", b)
		}
		if IDKey([]byte(a)) != IDKey([]byte(b)) {
			t.Fatalf("%s and %s are one value, keys %q and %q", a, b, IDKey([]byte(a)), IDKey([]byte(b)))
		}
		c := sign + strconv.FormatUint(mant+1, 10) + "e" + strconv.Itoa(int(exp))
		if mant != ^uint64(0) && IDKey([]byte(a)) == IDKey([]byte(c)) {
			t.Fatalf("%s and %s differ, one key %q", a, c, IDKey([]byte(a)))
		}
	})
}
