package neardup

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
)

func TestCompareArgs(t *testing.T) {
	tests := []struct {
		name           string
		kf             canon.KeyFields
		earlier, later string
		similar        bool
		reason         string
	}{
		{"2.6/key-field-differs-only", canon.KeyFields{}, `{"idempotency_key":"k1","amount":5}`, `{"amount":5,"Idempotency-Key":"k2"}`, true,
			"the arguments of pay are the same apart from key fields and notation"},
		{"2.6/new-key-and-string-amount", canon.KeyFields{}, `{"idempotency_key":"k1","amount":5}`, `{"idempotency_key":"k2","amount":"5"}`, true,
			"the arguments of pay differ only by number vs string (docs/behaviour.md §4.6)"},
		{"2.6/iban-and-case", canon.KeyFields{}, `{"iban":"de89 3704","memo":"Rent"}`, `{"iban":"DE893704","memo":"rent"}`, true,
			"the arguments of pay differ only by letter case, white space (docs/behaviour.md §4.6)"},
		{"2.6/fields-omitted", canon.KeyFields{}, `{"to":"bob","amount":5,"memo":"x"}`, `{"to":"bob","amount":5}`, true,
			"the arguments of pay differ only by fields added or omitted (docs/behaviour.md §4.6)"},
		{"2.6/custom-key-field", canon.ParseKeyFields([]string{"request-id"}), `{"request_id":"a","n":1}`, `{"REQUEST-ID":"b","n":1}`, true,
			"the arguments of pay are the same apart from key fields and notation"},
		{"2.6/only-key-fields", canon.KeyFields{}, `{"idempotency_key":"a"}`, `{"idempotency_key":"b"}`, true,
			"the arguments of pay are the same apart from key fields and notation"},
		{"2.6/not/changed-value", canon.KeyFields{}, `{"idempotency_key":"k1","amount":5}`, `{"idempotency_key":"k2","amount":6}`, false, ""},
		{"2.6/not/key-field-is-not-a-shared-field", canon.KeyFields{}, `{"idempotency_key":"k1","a":1}`, `{"idempotency_key":"k1","b":1}`, false, ""},
		{"2.6/not/invalid-json", canon.KeyFields{}, `{"a":1}`, `{"a":`, false,
			"the arguments of pay are not valid JSON, so they cannot be compared; treated as possibly the same operation"},
		{"2.6/lone-surrogate-new-key-and-case", canon.KeyFields{}, `{"idempotency_key":"k1","guest":"Ada\ud83d"}`, `{"idempotency_key":"k2","guest":"ADA\ud83d"}`, true,
			"the arguments of pay differ only by letter case (docs/behaviour.md §4.6)"},
		{"2.6/empty-members-vs-no-members", canon.KeyFields{}, `{"idempotency_key":"k1","note":null}`, `{"idempotency_key":"k2"}`, true,
			"the arguments of pay differ only by fields added or omitted (docs/behaviour.md §4.6)"},
		{"2.6/non-object-args", canon.KeyFields{}, `[1,2]`, `[2,1]`, true,
			"the arguments of pay differ only by array element order (docs/behaviour.md §4.6)"},
		{"2.6/scalar-args-same-value", canon.KeyFields{}, `12`, `12.0`, true,
			"the arguments of pay are the same apart from key fields and notation"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := CompareArgs([]byte(tc.earlier), []byte(tc.later), tc.kf)
			if r.Similar != tc.similar || r.Reason("pay") != tc.reason {
				t.Errorf("CompareArgs = %+v, %q; want %v, %q", r, r.Reason("pay"), tc.similar, tc.reason)
			}
		})
	}
}

func TestReasonUndecided(t *testing.T) {
	want := "the arguments of pay are too large to compare within 1048576 steps; treated as possibly the same operation"
	if got := (Result{Undecided: true}).Reason("pay"); got != want {
		t.Errorf("Reason = %q", got)
	}
}

func TestReasonTooDeep(t *testing.T) {
	want := "the arguments of pay differ at a nesting depth beyond 256, deeper than they are compared; treated as possibly the same operation"
	if got := (Result{Undecided: true, TooDeep: true}).Reason("pay"); got != want {
		t.Errorf("Reason = %q", got)
	}
}
