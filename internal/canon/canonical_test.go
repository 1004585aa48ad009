package canon

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"2.1/number/integer", `12`, `12`},
		{"2.1/number/trailing-fraction-zero", `12.0`, `12`},
		{"2.1/number/exponent", `1.2e1`, `12`},
		{"2.1/number/negative-exponent", `120e-1`, `12`},
		{"2.1/number/upper-E-plus", `12.000E+0`, `12`},
		{"2.1/number/minus-zero", `-0`, `0`},
		{"2.1/number/minus-zero-fraction", `-0.000e5`, `0`},
		{"2.1/number/2^53", `9007199254740992`, `9007199254740992`},
		{"2.1/number/2^53+1", `9007199254740993`, `9007199254740993`},
		{"2.1/number/tenth", `0.1`, `0.1`},
		{"2.1/number/small", `0.000001`, `0.000001`},
		{"2.1/number/smaller", `1e-7`, `1e-7`},
		{"2.1/number/1e20-expanded", `1e20`, `100000000000000000000`},
		{"2.1/number/1e21-exponential", `1e21`, `1e21`},
		{"2.1/number/long-integer", `123456789012345678901234`, `1.23456789012345678901234e23`},
		{"2.1/number/decimal-point", `-123.4560`, `-123.456`},
		{"2.1/number/huge-exponent", `1e999999999`, `1e999999999`},
		{"2.1/number/huger-exponent", `10e99999999999999999999`, `1e100000000000000000000`},
		{"2.1/number/tiny-exponent", `0.5e-99999999999999999999`, `5e-100000000000000000000`},
		{"2.1/number/zero-huge-exponent", `0e99999999999999999999`, `0`},
		{"2.1/number/exponent-leading-zeros", `1e0007`, `10000000`},
		{"2.1/string/escapes-decoded", `"\u00e9\/\"\\\n\t\b\f\r\u0001"`, `"é/\"\\\n\t\b\f\r\u0001"`},
		{"2.1/string/surrogate-pair", `"\ud83d\ude00"`, `"😀"`},
		{"2.1/string/U+2028-raw", `"\u2028"`, "\"\u2028\""},
		{"2.1/string/DEL-raw", `"\u007f"`, "\"\x7f\""},
		// Lone surrogates (JavaScript cutting an emoji) and invalid UTF-8
		// bytes are kept: escapes in lower-case hex, bytes verbatim.
		{"2.1/string/lone-high-surrogate", `"\uD83D"`, `"\ud83d"`},
		{"2.1/string/lone-low-surrogate", `"\udc00x"`, `"\udc00x"`},
		{"2.1/string/lone-high-then-pair", `"\ud83d\ud83d\ude00"`, `"\ud83d😀"`},
		{"2.1/string/low-then-high", `"\ude00\ud83d"`, `"\ude00\ud83d"`},
		{"2.1/string/high-then-other-escape", `"\ud800\n"`, `"\ud800\n"`},
		{"2.1/string/U+D7FF-raw", `"\ud7ff"`, "\"\ud7ff\""},
		{"2.1/string/invalid-utf8-verbatim", "\"a\xffb\"", "\"a\xffb\""},
		{"2.1/string/invalid-utf8-after-escape", "\"\\n\xff\"", "\"\\n\xff\""},
		{"2.1/string/encoded-surrogate-bytes-verbatim", "\"\xed\xa0\x80\"", "\"\xed\xa0\x80\""},
		{"2.1/string/overlong-verbatim", "\"\xc0\x80\"", "\"\xc0\x80\""},
		{"2.1/object/lone-surrogate-name", `{"\udc00":1,"\ud800":2}`, `{"\ud800":2,"\udc00":1}`},
		{"2.1/object/key-order", `{"b":1,"a":2}`, `{"a":2,"b":1}`},
		{"2.1/object/key-order-by-decoded-bytes", `{"\u0062":1,"a":2,"é":3,"Z":4}`, `{"Z":4,"a":2,"b":1,"é":3}`},
		{"2.1/object/duplicate-last-wins", `{"a":1,"b":2,"a":3}`, `{"a":3,"b":2}`},
		{"2.1/object/duplicate-escaped-last-wins", `{"a":1,"\u0061":3}`, `{"a":3}`},
		{"2.1/object/nested", ` { "z" : [ 1 , { "y" : null , "x" : true } , false ] , "a" : { } } `, `{"a":{},"z":[1,{"x":true,"y":null},false]}`},
		{"2.1/array/order-kept", `[3,1,2]`, `[3,1,2]`},
		{"2.1/empty-containers", `[[],{},[{}]]`, `[[],{},[{}]]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Canonical([]byte(tc.in))
			if err != nil {
				t.Fatalf("Canonical(%s): %v", tc.in, err)
			}
			if string(got) != tc.want {
				t.Errorf("Canonical(%s) = %s, want %s", tc.in, got, tc.want)
			}
			again, err := Canonical(got)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("not idempotent: %s -> %s (%v)", got, again, err)
			}
		})
	}
}

func TestCanonicalInvalid(t *testing.T) {
	tests := []struct{ name, in, msg string }{
		{"empty", ``, "empty input"},
		{"blank", "  \n", "empty input"},
		{"trailing-data", `{} {}`, "after the value"},
		{"missing-value", `{"a":}`, "expecting a value"},
		{"trailing-comma", `[1,]`, "expecting a value"},
		{"unterminated-array", `[1`, "unexpected end of input"},
		{"unterminated-string", `"abc`, "unterminated string"},
		{"bad-literal", `tru`, "expecting true"},
		{"leading-zero", `012`, "after the value"},
		{"plus-sign", `+1`, "unexpected character"},
		{"bare-dot", `1.`, "digit expected after '.'"},
		{"bad-exponent", `1e`, "digit expected in exponent"},
		{"control-char", "\"a\nb\"", "control character"},
		{"bad-escape", `"\x"`, "invalid escape"},
		{"bad-unicode-escape", `"\u12g4"`, `invalid \u escape`},
		{"mismatched-bracket", `[1}`, "expecting ',' or a closing bracket"},
		{"unquoted-key", `{a:1}`, "expecting a member name"},
		{"missing-colon", `{"a" 1}`, "expecting ':'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Canonical([]byte(tc.in))
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("Canonical(%q) error = %v, want *SyntaxError", tc.in, err)
			}
			if !strings.Contains(err.Error(), tc.msg) || !strings.HasPrefix(err.Error(), "invalid JSON at offset ") {
				t.Errorf("Canonical(%q) error = %q, want it to contain %q", tc.in, err, tc.msg)
			}
		})
	}
}

func TestCanonicalDeepNesting(t *testing.T) {
	const depth = 10000
	for _, open := range []string{`[`, `{"b":0,"a":`} {
		closeB := "]"
		if open != `[` {
			closeB = "}"
		}
		in := strings.Repeat(open, depth) + "1" + strings.Repeat(closeB, depth)
		got, err := Canonical([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if !json.Valid(got) {
			t.Fatalf("canonical form of %.20s... is not valid JSON", in)
		}
		if open == `[` && string(got) != in {
			t.Errorf("deep array changed")
		}
		if open != `[` && !strings.HasPrefix(string(got), `{"a":{"a":`) {
			t.Errorf("deep object not sorted: %.40s", got)
		}
	}
}

func TestCanonicalLargeArgument(t *testing.T) {
	big := `{"data":"` + strings.Repeat("QUJD", 5<<20) + `","n":1}` // 20 MiB string
	got, err := Canonical([]byte(big))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(big) {
		t.Errorf("len = %d, want %d", len(got), len(big))
	}
}

// TestCanonicalStringIdentity: behaviour §4.1, strings compare by their exact
// code units: a lone surrogate, an invalid UTF-8 byte and U+FFFD are three
// different strings, and none of them is rejected.
func TestCanonicalStringIdentity(t *testing.T) {
	tests := []struct {
		name string
		a, b string
		same bool
	}{
		{"2.1/string/pair-escape-equals-raw", `"\ud83d\ude00"`, `"😀"`, true},
		{"2.1/string/escape-hex-case", `"\ud800"`, `"\uD800"`, true},
		{"2.1/string/lone-surrogate-vs-its-bytes", `"\ud800"`, "\"\xed\xa0\x80\"", false},
		{"2.1/string/lone-surrogate-vs-replacement", `"\ud800"`, `"\ufffd"`, false},
		{"2.1/string/lone-surrogate-vs-escape-text", `"\ud800"`, `"\\ud800"`, false},
		{"2.1/string/two-lone-surrogates", `"a\ud800"`, `"a\ud801"`, false},
		{"2.1/string/invalid-byte-vs-latin1", "\"\xff\"", `"\u00ff"`, false},
		{"2.1/string/invalid-byte-vs-replacement", "\"\xff\"", `"\ufffd"`, false},
		{"2.1/string/two-invalid-bytes", "\"\xff\"", "\"\xfe\"", false},
		{"2.1/string/invalid-byte-order", "\"\xff\xed\"", "\"\xed\xff\"", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ca, err := Canonical([]byte(tc.a))
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.a, err)
			}
			cb, err := Canonical([]byte(tc.b))
			if err != nil {
				t.Fatalf("Canonical(%q): %v", tc.b, err)
			}
			if bytes.Equal(ca, cb) != tc.same {
				t.Errorf("Canonical(%q) = %q, Canonical(%q) = %q: same = %v, want %v", tc.a, ca, tc.b, cb, !tc.same, tc.same)
			}
		})
	}
}
