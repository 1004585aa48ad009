package canon

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"testing"
)

func TestOperation(t *testing.T) {
	def := ParseKeyFields(nil)
	tests := []struct {
		name      string
		kf        KeyFields
		a, b      string
		same      bool
		wantCanon string // canonical remainder of a
	}{
		{"2.1/key-order-irrelevant", def, `{"a":1,"b":{"y":2,"x":3}}`, `{"b":{"x":3,"y":2},"a":1}`, true, `{"a":1,"b":{"x":3,"y":2}}`},
		{"2.1/2^53-vs-2^53+1", def, `{"n":9007199254740992}`, `{"n":9007199254740993}`, false, `{"n":9007199254740992}`},
		{"2.1/number-vs-string", def, `{"n":12}`, `{"n":"12"}`, false, `{"n":12}`},
		{"2.1/12-vs-12.0", def, `{"n":12}`, `{"n":12.0}`, true, `{"n":12}`},
		{"2.1/12-vs-1.2e1", def, `{"n":12}`, `{"n":1.2e1}`, true, `{"n":12}`},
		{"2.1/key-field-stripped", def, `{"idempotency_key":"k1","n":1}`, `{"n":1,"idempotency_key":"k2"}`, true, `{"n":1}`},
		{"2.1/key-field-Idempotency-Key", def, `{"Idempotency-Key":"k1","n":1}`, `{"n":1}`, true, `{"n":1}`},
		{"2.1/key-field-IDEMPOTENCY_KEY", def, `{"IDEMPOTENCY_KEY":"k1","n":1}`, `{"n":1}`, true, `{"n":1}`},
		{"2.1/key-field-nested-not-stripped", def, `{"x":{"idempotency_key":"k1"}}`, `{"x":{"idempotency_key":"k2"}}`, false, `{"x":{"idempotency_key":"k1"}}`},
		{"2.1/key-field-custom", ParseKeyFields([]string{" request-id ", ""}), `{"Request_ID":"r","idempotency_key":"k"}`, `{"idempotency_key":"k"}`, true, `{"idempotency_key":"k"}`},
		{"2.1/null-args-is-empty-object", def, `null`, `{}`, true, `{}`},
		{"2.1/absent-args-is-empty-object", def, ``, `{"idempotency_key":"k"}`, true, `{}`},
		{"2.1/array-args", def, `[1,{"idempotency_key":1}]`, `[1,{}]`, false, `[1,{"idempotency_key":1}]`},
		{"2.1/string-args", def, `"x"`, `"x"`, true, `"x"`},
		{"2.1/lone-surrogate-new-key", def, `{"guest":"Ada\ud83d","idempotency_key":"k1"}`, `{"guest":"Ada\ud83d","idempotency_key":"k2"}`, true, `{"guest":"Ada\ud83d"}`},
		{"2.1/lone-surrogate-member-order", def, `{"guest":"Ada\ud83d","nights":2}`, `{"nights":2, "guest":"Ada\uD83D"}`, true, `{"guest":"Ada\ud83d","nights":2}`},
		{"2.1/lone-surrogate-vs-other", def, `{"guest":"Ada\ud83d"}`, `{"guest":"Ada\ud83e"}`, false, `{"guest":"Ada\ud83d"}`},
		{"2.1/invalid-utf8-new-key", def, "{\"guest\":\"Ada\xff\",\"idempotency_key\":\"k1\"}", "{\"idempotency_key\":\"k2\",\"guest\":\"Ada\xff\"}", true, "{\"guest\":\"Ada\xff\"}"},
		{"2.1/invalid-utf8-vs-replacement", def, "{\"guest\":\"Ada\xff\"}", `{"guest":"Ada\ufffd"}`, false, "{\"guest\":\"Ada\xff\"}"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Operation("pay", []byte(tc.a), tc.kf)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Operation("pay", []byte(tc.b), tc.kf)
			if err != nil {
				t.Fatal(err)
			}
			if string(a.Canonical) != tc.wantCanon {
				t.Errorf("Canonical = %s, want %s", a.Canonical, tc.wantCanon)
			}
			if (a.Key == b.Key) != tc.same {
				t.Errorf("same operation = %v, want %v (%s vs %s)", a.Key == b.Key, tc.same, a.Canonical, b.Canonical)
			}
			sum := sha256.Sum256([]byte("pay\x00" + string(a.Canonical)))
			if a.Key != hex.EncodeToString(sum[:]) {
				t.Errorf("Key = %s, want sha256 of tool NUL canonical", a.Key)
			}
		})
	}
}

func TestOperationToolName(t *testing.T) {
	a, _ := Operation("pay", []byte(`{}`), KeyFields{})
	b, _ := Operation("refund", []byte(`{}`), KeyFields{})
	if a.Key == b.Key {
		t.Error("different tools gave the same key")
	}
}

func TestOperationKeys(t *testing.T) {
	op, err := Operation("t", []byte(`{"Idempotency-Key":"k\u0031","idempotency_key":{"b":1.0,"a":[2]},"x":1}`), KeyFields{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`k1`, `{"a":[2],"b":1}`}
	if !slices.Equal(op.Keys, want) {
		t.Errorf("Keys = %q, want %q", op.Keys, want)
	}
	if string(op.Canonical) != `{"x":1}` {
		t.Errorf("Canonical = %s", op.Canonical)
	}
}

func TestOperationInvalid(t *testing.T) {
	_, err := Operation("pay", []byte(`{"a":`), KeyFields{})
	if err == nil || err.Error() != `canonicalising arguments of "pay": invalid JSON at offset 5: unexpected end of input, expecting a value` {
		t.Errorf("err = %v", err)
	}
}

func TestKeyFields(t *testing.T) {
	tests := []struct {
		name  string
		names []string
		in    string
		want  bool
	}{
		{"default/exact", nil, "idempotency_key", true},
		{"default/dash-title", nil, "Idempotency-Key", true},
		{"default/upper", nil, "IDEMPOTENCY_KEY", true},
		{"default/other", nil, "idempotencykey", false},
		{"custom/dash-config", []string{"request-id"}, "REQUEST_ID", true},
		{"custom/replaces-default", []string{"request-id"}, "idempotency_key", false},
		{"custom/list", []string{"a", "b_c"}, "B-C", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParseKeyFields(tc.names).Match(tc.in); got != tc.want {
				t.Errorf("Match(%q) = %v, want %v", tc.in, got, tc.want)
			}
		})
	}
	if got := (KeyFields{}).Names(); !slices.Equal(got, []string{"idempotency_key"}) {
		t.Errorf("zero Names() = %q", got)
	}
	if got := ParseKeyFields([]string{"x-y", " z "}).Names(); !slices.Equal(got, []string{"x-y", "z"}) {
		t.Errorf("Names() = %q", got)
	}
}

// TestOperationCaseClash: behaviour §4.1 compares member names exactly, but an
// upstream may not (Go's encoding/json matches them case-insensitively), so
// Operation reports member names that differ only in letter case.
func TestOperationCaseClash(t *testing.T) {
	many := func(extra string) string {
		var b []byte
		b = append(b, '{')
		for i := range 20 {
			b = fmt.Appendf(b, `"m%d":%d,`, i, i)
		}
		return string(b) + extra + `}`
	}
	tests := []struct {
		name, args string
		want       [2]string
	}{
		{"2.1/case-clash/top-level", `{"room":"1","Room":"12"}`, [2]string{"room", "Room"}},
		{"2.1/case-clash/nested-in-array", `{"a":{"b":[1,{"X":1,"y":0,"x":2}]}}`, [2]string{"X", "x"}},
		{"2.1/case-clash/top-level-array", `[{"id":1,"ID":1}]`, [2]string{"id", "ID"}},
		{"2.1/case-clash/escaped-name", `{"\u0041":1,"a":2}`, [2]string{"A", "a"}},
		{"2.1/case-clash/kelvin-sign", `{"k":1,"\u212a":2}`, [2]string{"k", "\u212a"}},
		{"2.1/case-clash/long-s", `{"s":1,"\u017f":2}`, [2]string{"s", "\u017f"}},
		{"2.1/case-clash/non-ascii", `{"Ärger":1,"äRGER":2}`, [2]string{"Ärger", "äRGER"}},
		{"2.1/case-clash/large-object", many(`"M7":0`), [2]string{"m7", "M7"}},
		{"2.1/case-clash/key-field-and-other", `{"idempotency_key":"k","IDEMPOTENCY_KEY":"k2","n":1}`, [2]string{}},
		{"2.1/case-clash/inside-key-field-value", `{"idempotency_key":{"a":1,"A":2},"n":1}`, [2]string{}},
		{"2.1/case-clash/none/byte-identical-duplicate", `{"a":1,"a":2}`, [2]string{}},
		{"2.1/case-clash/none/different-names", `{"ab":1,"ba":2,"abc":3,"AB_":4}`, [2]string{}},
		{"2.1/case-clash/none/sharp-s-is-full-folding", `{"ß":1,"ss":2}`, [2]string{}},
		{"2.1/case-clash/none/large-object", many(`"m20":0`), [2]string{}},
		{"2.1/case-clash/none/scalar", `"Room"`, [2]string{}},
		{"2.1/case-clash/none/values-differ-in-case", `{"a":"x","b":"X"}`, [2]string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			op, err := Operation("book", []byte(tc.args), ParseKeyFields(nil))
			if err != nil {
				t.Fatal(err)
			}
			if op.CaseClash != tc.want {
				t.Errorf("CaseClash = %q, want %q", op.CaseClash, tc.want)
			}
		})
	}
}
