package classify

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// keyMatch mirrors canon.KeyFields.Match for the default list: equal to
// idempotency_key case-insensitively, with - ≡ _.
func keyMatch(name string) bool {
	return strings.EqualFold(strings.ReplaceAll(name, "-", "_"), "idempotency_key")
}

func TestKeyFieldsOf(t *testing.T) {
	tests := []struct {
		name, schema string
		want         []string
	}{
		{"top-level key field", `{"type":"object","properties":{"date":{},"idempotency_key":{"type":"string"}}}`, []string{"idempotency_key"}},
		{"matcher decides spelling", `{"properties":{"Idempotency-Key":{}}}`, []string{"Idempotency-Key"}},
		{"schema order kept", `{"properties":{"idempotency-key":{},"a":{},"IDEMPOTENCY_KEY":{}}}`, []string{"idempotency-key", "IDEMPOTENCY_KEY"}},
		{"no key field", `{"properties":{"date":{}}}`, nil},
		{"nested key field does not count", `{"properties":{"booking":{"properties":{"idempotency_key":{}}}}}`, nil},
		{"required alone does not count", `{"required":["idempotency_key"],"properties":{}}`, nil},
		{"properties key is case-sensitive", `{"Properties":{"idempotency_key":{}}}`, nil},
		{"properties not an object", `{"properties":["idempotency_key"]}`, nil},
		{"schema not an object", `["idempotency_key"]`, nil},
		{"invalid JSON", `{"properties":{"idempotency_key":`, nil},
		{"absent schema", ``, nil},
		{"null schema", `null`, nil},
		{"duplicate property listed once", `{"properties":{"idempotency_key":{},"idempotency_key":{}}}`, []string{"idempotency_key"}},
		{"escaped property name", `{"properties":{"idempotency\u005fkey":{}}}`, []string{"idempotency_key"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := KeyFieldsOf(json.RawMessage(tt.schema), keyMatch)
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("KeyFieldsOf(%s) = %q, want %q", tt.schema, got, tt.want)
			}
		})
	}
	if got := KeyFieldsOf(json.RawMessage(`{"properties":{"idempotency_key":{}}}`), nil); got != nil {
		t.Errorf("nil matcher: got %q, want nil", got)
	}
}

func FuzzKeyFieldsOf(f *testing.F) {
	f.Add([]byte(`{"properties":{"idempotency_key":{}}}`))
	f.Add([]byte(`{"properties":{"a":{"properties":{"idempotency_key":1}}}}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, schema []byte) {
		for _, k := range KeyFieldsOf(schema, keyMatch) {
			if !keyMatch(k) {
				t.Fatalf("returned %q, which the matcher rejects", k)
			}
		}
	})
}
