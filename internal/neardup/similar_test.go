package neardup

import (
	"fmt"
	"strings"
	"testing"
)

type pairCase struct {
	name           string
	earlier, later string
	want           bool
}

var similarCases = []pairCase{
	// identical and canonical equality
	{"2.6/identical", `{"a":1}`, `{"a":1}`, true},
	{"2.6/identical-invalid-json", `{"a":`, `{"a":`, true},
	{"2.6/key-order", `{"a":1,"b":2}`, `{"b":2,"a":1}`, true},
	{"2.6/number-notation", `{"a":12}`, `{"a":1.2e1}`, true},

	// number vs string
	{"2.6/number-vs-string/12", `{"amount":12}`, `{"amount":"12"}`, true},
	{"2.6/number-vs-string/1e3", `{"amount":"1e3"}`, `{"amount":1000}`, true},
	{"2.6/number-vs-string/12.50", `{"amount":12.5}`, `{"amount":"12.50"}`, true},
	{"2.6/number-vs-string/negative", `{"amount":-3}`, `{"amount":"-3"}`, true},
	{"2.6/number-vs-string/2^53+1", `{"n":9007199254740992}`, `{"n":"9007199254740993"}`, false},
	{"2.6/number-vs-string/leading-zeros", `{"n":12}`, `{"n":"0012"}`, false},
	{"2.6/number-vs-string/plus-sign", `{"n":1250}`, `{"n":"+1250"}`, false},
	{"2.6/number-vs-string/other-value", `{"n":12}`, `{"n":"13"}`, false},
	{"2.6/strings-plain-decimal/129.00", `{"amount":"129.00"}`, `{"amount":"129"}`, true},
	{"2.6/strings-plain-decimal/negative", `{"amount":"-1.50"}`, `{"amount":"-1.5"}`, true},
	{"2.6/strings-plain-decimal/not-leading-zeros", `{"amount":"0012"}`, `{"amount":"12"}`, false},
	{"2.6/strings-plain-decimal/not-plus-sign", `{"amount":"+1250"}`, `{"amount":"1250"}`, false},
	{"2.6/strings-plain-decimal/not-exponent", `{"amount":"1e3"}`, `{"amount":"1000"}`, false},
	{"2.6/strings-plain-decimal/different-value", `{"amount":"129.01"}`, `{"amount":"129"}`, false},

	// letter case
	{"2.6/letter-case/ascii", `{"name":"Ada Lovelace"}`, `{"name":"ADA LOVELACE"}`, true},
	{"2.6/letter-case/unicode", `{"city":"MÜNCHEN"}`, `{"city":"münchen"}`, true},
	{"2.6/letter-case/full-folding", `{"street":"STRASSE"}`, `{"street":"straße"}`, true},

	// white space
	{"2.6/whitespace/iban-grouping", `{"iban":"DE89 3704 0044 0532 0130 00"}`, `{"iban":"DE89370400440532013000"}`, true},
	{"2.6/whitespace/changed", `{"memo":"a b\tc"}`, `{"memo":"a  b\nc "}`, true},
	{"2.6/whitespace/nbsp", `{"memo":"a\u00a0b"}`, `{"memo":"ab"}`, true},
	{"2.6/whitespace/ideographic", `{"memo":"a\u3000b"}`, `{"memo":"a b"}`, true},

	// Unicode normalisation
	{"2.6/unicode/nfc-vs-nfd", "{\"name\":\"Jos\u00e9\"}", "{\"name\":\"Jose\u0301\"}", true},
	{"2.6/unicode/nfkc-fullwidth", `{"ref":"ＡＢＣ１２３"}`, `{"ref":"ABC123"}`, true},
	{"2.6/unicode/nfkc-ligature", `{"word":"ﬁle"}`, `{"word":"file"}`, true},
	{"2.6/unicode/fullwidth-number-vs-number", `{"n":"１２"}`, `{"n":12}`, true},

	// invisible characters
	{"2.6/invisible/zero-width-space", `{"iban":"DE89\u200b3704"}`, `{"iban":"DE893704"}`, true},
	{"2.6/invisible/soft-hyphen", `{"word":"co\u00adoperate"}`, `{"word":"cooperate"}`, true},
	{"2.6/invisible/bidi-controls", `{"name":"\u202aAda\u202c"}`, `{"name":"Ada"}`, true},
	{"2.6/invisible/bom", `{"name":"\ufeffAda"}`, `{"name":"Ada"}`, true},
	{"2.6/invisible/variation-selector", `{"icon":"\u2764\ufe0f"}`, `{"icon":"\u2764"}`, true},
	{"2.6/invisible/variation-selector-supplement", `{"k":"\u845b\udb40\udd00"}`, `{"k":"\u845b"}`, true},

	// null vs ""
	{"2.6/null-vs-empty", `{"memo":null}`, `{"memo":""}`, true},
	{"2.6/null-vs-empty/reversed", `{"memo":""}`, `{"memo":null}`, true},
	{"2.6/null-vs-empty/blank", `{"memo":null}`, `{"memo":" "}`, true},
	{"2.6/null-vs-empty/not-text", `{"memo":null}`, `{"memo":"x"}`, false},
	{"2.6/null-vs-empty/not-zero", `{"memo":null}`, `{"memo":0}`, false},

	// array order
	{"2.6/array-order/scalars", `{"tags":["a","b","c"]}`, `{"tags":["c","a","b"]}`, true},
	{"2.6/array-order/objects", `{"items":[{"sku":"A","qty":1},{"sku":"B","qty":2}]}`, `{"items":[{"sku":"B","qty":2},{"sku":"A","qty":1}]}`, true},
	{"2.6/array-order/reordered-and-case", `{"tags":["Alpha","beta"]}`, `{"tags":["BETA","alpha"]}`, true},
	{"2.6/array-order/duplicates-multiset", `[1,1,2]`, `[2,1,1]`, true},
	{"2.6/array-order/multiset-differs", `[1,1,2]`, `[2,2,1]`, false},
	{"2.6/array-order/top-level", `["x",{"a":1}]`, `[{"a":"1"},"X"]`, true},

	// fields added or omitted
	{"2.6/fields/customer.email", `{"customer":{"name":"Ada","email":"ada@example.org"},"amount":5}`, `{"customer":{"name":"Ada"},"amount":5}`, true},
	{"2.6/fields/items[1].unitPrice", `{"items":[{"sku":"A","qty":1,"unitPrice":3},{"sku":"B","qty":2,"unitPrice":4}]}`, `{"items":[{"sku":"A","qty":1,"unitPrice":3},{"sku":"B","qty":2}]}`, true},
	{"2.6/fields/top-level-added", `{"to":"bob","amount":5}`, `{"to":"bob","amount":5,"memo":"rent"}`, true},
	{"2.6/fields/top-level-omitted", `{"to":"bob","amount":5,"memo":"rent"}`, `{"to":"bob","amount":5}`, true},
	{"2.6/fields/half-equal-with-added", `{"to":"alice","amount":5}`, `{"to":"bob","amount":5,"memo":"x"}`, true},
	{"2.6/fields/less-than-half-equal", `{"to":"alice","amount":5,"cur":"EUR"}`, `{"to":"bob","amount":6,"cur":"EUR","memo":"x"}`, false},
	{"2.6/fields/no-shared-field", `{"a":1}`, `{"b":1}`, false},
	{"2.6/fields/no-shared-field-disjoint", `{"a":1}`, `{"b":2}`, false},
	{"2.6/fields/empty-vs-some", `{}`, `{"b":1}`, false},
	// Members that carry nothing (null, "", blank or invisible-only
	// strings) may be added or omitted even when no member is shared.
	{"2.6/fields/empty-members/null-vs-none", `{"note":null}`, `{}`, true},
	{"2.6/fields/empty-members/empty-string-vs-none", `{"note":""}`, `{}`, true},
	{"2.6/fields/empty-members/blank-vs-none", `{"note":" \u200b","memo":null}`, `{}`, true},
	{"2.6/fields/empty-members/vs-null", `{"note":""}`, `null`, true},
	{"2.6/fields/empty-members/empty-object-vs-null", `{}`, `null`, true},
	{"2.6/fields/empty-members/nested", `{"a":{"note":null},"b":1}`, `{"a":{},"b":1}`, true},
	{"2.6/fields/empty-members/nested-vs-null", `{"a":{"note":""},"b":1}`, `{"a":null,"b":1}`, true},
	{"2.6/fields/empty-members/disjoint-empty", `{"note":null}`, `{"memo":""}`, true},
	{"2.6/fields/empty-members/in-reordered-array", `[{"note":null},1]`, `[1,{}]`, true},
	{"2.6/fields/empty-members/not-text", `{"note":"x"}`, `{}`, false},
	{"2.6/fields/empty-members/not-zero", `{"note":0}`, `null`, false},
	{"2.6/fields/empty-members/not-empty-object-member", `{"note":{}}`, `{}`, false},
	{"2.6/fields/empty-members/not-one-side", `{"note":null}`, `{"b":1}`, false},
	{"2.6/fields/empty-members/not-empty-string-vs-object", `""`, `{}`, false},

	// strings that are not valid Unicode (behaviour §4.1 keeps them exact)
	{"2.6/invalid-unicode/lone-surrogate-same", `{"g":"Ada\ud83d","n":1}`, `{"n":1.0,"g":"Ada\ud83d"}`, true},
	{"2.6/invalid-unicode/lone-surrogate-case", `{"g":"Ada\ud83d"}`, `{"g":"ADA\ud83d"}`, true},
	{"2.6/invalid-unicode/lone-surrogate-nfd", `{"g":"Zo\u00e9\udc00"}`, `{"g":"Zoe\u0301\udc00"}`, true},
	{"2.6/invalid-unicode/lone-surrogate-vs-replacement", `{"g":"\ud800"}`, `{"g":"\ufffd"}`, true},
	{"2.6/invalid-unicode/invalid-byte-case", "{\"g\":\"Ada\xff\"}", "{\"g\":\"ada\xff\"}", true},
	{"2.6/invalid-unicode/changed", `{"g":"Ada\ud83d"}`, `{"g":"Bob\ud83d"}`, false},
	{"2.6/fields/combined-with-case", `{"customer":{"name":"ADA","email":"a@x"}}`, `{"customer":{"name":"ada"}}`, true},
	{"2.6/fields/in-reordered-array", `[{"sku":"A","qty":1},{"sku":"B","qty":2,"note":"x"}]`, `[{"sku":"B","qty":2},{"sku":"A","qty":1}]`, true},

	// date notation (more in date_test.go)
	{"2.6/date-notation", `{"date":"2026-11-03"}`, `{"date":"03.11.2026"}`, true},
	{"2.6/date-notation/other-day", `{"date":"2026-11-03"}`, `{"date":"04.11.2026"}`, false},

	// not detected
	{"2.6/not/punctuation", `{"iban":"DE89-3704-0044"}`, `{"iban":"DE8937040044"}`, false},
	{"2.6/not/punctuation-dot", `{"ref":"A.B"}`, `{"ref":"AB"}`, false},
	{"2.6/not/changed-value", `{"to":"bob","amount":5}`, `{"to":"bob","amount":6}`, false},
	{"2.6/not/changed-string", `{"to":"bob"}`, `{"to":"rob"}`, false},
	{"2.6/not/changed-nested", `{"customer":{"name":"Ada"}}`, `{"customer":{"name":"Bob"}}`, false},
	{"2.6/not/array-element-added", `{"tags":["a","b"]}`, `{"tags":["a","b","c"]}`, false},
	{"2.6/not/array-element-removed", `{"tags":["a","b"]}`, `{"tags":["a"]}`, false},
	{"2.6/not/renamed-field", `{"amount":5}`, `{"sum":5}`, false},
	{"2.6/not/renamed-field-case", `{"Amount":5}`, `{"amount":5}`, false},
	{"2.6/not/moved-into-sub-object", `{"amount":5,"currency":"EUR"}`, `{"money":{"amount":5,"currency":"EUR"}}`, false},
	{"2.6/not/moved-but-half-rule-holds", `{"to":"bob","amount":5,"currency":"EUR"}`, `{"to":"bob","money":{"amount":5,"currency":"EUR"}}`, true},
	{"2.6/not/bool-vs-string", `{"ok":true}`, `{"ok":"true"}`, false},
	{"2.6/not/number-vs-number", `{"n":1}`, `{"n":2}`, false},
	{"2.6/not/type-change", `{"n":[1]}`, `{"n":{"0":1}}`, false},
	{"2.6/not/invalid-json", `{"a":1}`, `{"a":1`, false},
}

func TestSimilar(t *testing.T) {
	for _, tc := range similarCases {
		t.Run(tc.name, func(t *testing.T) {
			if got := Similar([]byte(tc.earlier), []byte(tc.later)); got != tc.want {
				t.Errorf("Similar(%s, %s) = %v, want %v", tc.earlier, tc.later, got, tc.want)
			}
			if got := Similar([]byte(tc.later), []byte(tc.earlier)); got != tc.want {
				t.Errorf("Similar(%s, %s) (swapped) = %v, want %v", tc.later, tc.earlier, got, tc.want)
			}
		})
	}
}

func TestSimilarKinds(t *testing.T) {
	tests := []struct {
		name, a, b, want string
	}{
		{"case-only", `{"n":"ABC"}`, `{"n":"abc"}`, "letter case"},
		{"case-and-space", `{"n":"ABC"}`, `{"n":"ab c"}`, "letter case, white space"},
		{"space-only", `{"n":"AB C"}`, `{"n":"ABC"}`, "white space"},
		{"invisible", `{"n":"a\u200bb"}`, `{"n":"ab"}`, "invisible characters"},
		{"nfd", "{\"n\":\"\u00e9\"}", "{\"n\":\"e\u0301\"}", "Unicode normalisation"},
		{"number", `{"n":12}`, `{"n":"12"}`, "number vs string"},
		{"decimal", `{"n":"12.0"}`, `{"n":"12"}`, "decimal notation"},
		{"null", `{"n":null}`, `{"n":""}`, "null vs empty string"},
		{"order", `[1,2]`, `[2,1]`, "array element order"},
		{"fields", `{"a":1,"b":2}`, `{"a":1}`, "fields added or omitted"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := compare([]byte(tc.a), []byte(tc.b), nil)
			if !r.Similar || r.kinds.String() != tc.want {
				t.Errorf("compare = %+v (%s), want similar with %q", r, r.kinds, tc.want)
			}
		})
	}
}

func TestSimilarDeepNesting(t *testing.T) {
	const depth = 10000
	nest := func(open, close, leaf string) []byte {
		return []byte(strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth))
	}
	tests := []struct {
		name string
		a, b []byte
		want bool
	}{
		{"arrays/identical-text", nest("[", "]", "1"), nest("[", "]", "1"), true},
		{"arrays/identical-value", nest("[", "]", "1"), nest("[ ", " ]", "1.0"), true},
		{"arrays/identical-value/deep-number-notation", nest("[", "]", "[1,2]"), nest("[", "]", "[1.0,2e0]"), true},
		{"objects/identical-value", nest(`{"a":`, "}", "1"), nest(`{ "a" : `, "}", "1e0"), true},
		{"objects/two-fields-changed-shallow", nest(`{"b":2,"a":`, "}", "1"), nest(`{"b":3,"a":`, "}", "1"), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Similar(tc.a, tc.b); got != tc.want {
				t.Errorf("Similar = %v, want %v", got, tc.want)
			}
		})
	}
}

// TestSimilarBeyondMaxDepth: behaviour §4.6 detects transformations "at any
// depth"; beyond MaxDepth values are not compared, so values that differ
// there make the answer undecided (possible), never "different".
func TestSimilarBeyondMaxDepth(t *testing.T) {
	nest := func(depth int, open, close, leaf string) []byte {
		return []byte(strings.Repeat(open, depth) + leaf + strings.Repeat(close, depth))
	}
	tests := []struct {
		name string
		a, b []byte
		want string // similar, undecided, different
	}{
		{"2.6/any-depth/case-at-300", nest(300, `{"a":`, "}", `"Ada"`), nest(300, `{"a":`, "}", `"ADA"`), "undecided"},
		{"2.6/any-depth/case-at-10000", nest(10000, "[", "]", `"A"`), nest(10000, "[", "]", `"a"`), "undecided"},
		{"2.6/any-depth/leaf-changed-at-10000", nest(10000, "[", "]", "1"), nest(10000, "[", "]", "2"), "undecided"},
		{"2.6/any-depth/objects-leaf-changed-at-10000", nest(10000, `{"a":`, "}", "1"), nest(10000, `{"a":`, "}", "2"), "undecided"},
		{"2.6/any-depth/deep-in-array-of-two", []byte(`[1,` + string(nest(300, "[", "]", `"A"`)) + `]`), []byte(`[` + string(nest(300, "[", "]", `"a"`)) + `,1]`), "undecided"},
		{"2.6/any-depth/identical-at-10000", nest(10000, "[", "]", "1"), nest(10000, "[ ", " ]", "1.0"), "similar"},
		{"2.6/any-depth/shallow-difference-decides", []byte(`{"x":1,"y":` + string(nest(300, "[", "]", `"A"`)) + `}`), []byte(`{"x":2,"y":` + string(nest(300, "[", "]", `"a"`)) + `}`), "different"},
		{"2.6/any-depth/shallow-change-at-10000", nest(10000, `{"b":2,"a":`, "}", "1"), nest(10000, `{"b":3,"a":`, "}", "1"), "different"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Compare(tc.a, tc.b)
			got := "different"
			switch {
			case r.Similar:
				got = "similar"
			case r.Undecided:
				got = "undecided"
			}
			if got != tc.want {
				t.Errorf("Compare = %+v, want %s", r, tc.want)
			}
		})
	}
}

func TestSimilarShallowNestingUsesRelation(t *testing.T) {
	// At depth below MaxDepth, transformations are still detected.
	d := MaxDepth - 2
	a := strings.Repeat("[", d) + `"A"` + strings.Repeat("]", d)
	b := strings.Repeat("[", d) + `"a"` + strings.Repeat("]", d)
	if !Similar([]byte(a), []byte(b)) {
		t.Errorf("case change at depth %d not detected", d)
	}
}

func bigArray(n int, f func(i int) string) []byte {
	var b strings.Builder
	b.WriteString(`{"rows":[`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(f(i))
	}
	b.WriteString(`]}`)
	return []byte(b.String())
}

func TestSimilarLargeArrays(t *testing.T) {
	const n = 100000
	row := func(i int) string { return fmt.Sprintf(`{"id":%d,"name":"Row %d"}`, i, i) }
	tests := []struct {
		name string
		a, b []byte
		want bool
	}{
		{"identical", bigArray(n, row), bigArray(n, row), true},
		{"reversed", bigArray(n, row), bigArray(n, func(i int) string { return row(n - 1 - i) }), true},
		{"reversed-and-case", bigArray(n, row), bigArray(n, func(i int) string {
			return fmt.Sprintf(`{"id":"%d","name":"ROW %d"}`, n-1-i, n-1-i)
		}), true},
		{"one-changed", bigArray(n, row), bigArray(n, func(i int) string {
			if i == n/2 {
				return row(n + 1)
			}
			return row(i)
		}), false},
		{"one-field-omitted-in-place", bigArray(n, row), bigArray(n, func(i int) string {
			if i == 7 {
				return fmt.Sprintf(`{"id":%d}`, i)
			}
			return row(i)
		}), true},
		{"length-differs", bigArray(n, row), bigArray(n-1, row), false},
		{"all-different-scalars", bigArray(n, func(i int) string { return fmt.Sprint(i) }), bigArray(n, func(i int) string { return fmt.Sprint(i + n) }), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Similar(tc.a, tc.b); got != tc.want {
				t.Errorf("Similar = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestSimilarGreedyBudget(t *testing.T) {
	// 2,000 objects reordered with a field omitted from each: the hashing
	// stages cannot pair them, the greedy stage can within the budget.
	const n = 2000
	a := bigArray(n, func(i int) string { return fmt.Sprintf(`{"id":%d,"x":1,"y":%d}`, i, i) })
	b := bigArray(n, func(i int) string { return fmt.Sprintf(`{"id":%d,"x":1}`, n-1-i) })
	r := compare(a, b, nil)
	if !r.Similar && !r.Undecided {
		t.Errorf("compare = %+v, want similar or undecided", r)
	}
}
