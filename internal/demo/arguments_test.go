package demo

import (
	"encoding/json"
	"testing"
	"unicode/utf8"
)

func TestCallArguments(t *testing.T) {
	key := "k-1"
	tests := []struct {
		name    string
		raw     string
		key     *string
		want    string
		wantErr bool
	}{
		{"absent", "", nil, `{}`, false},
		{"null", "null", nil, `{}`, false},
		{"unchanged without key", `{"b":1,"a":12.0}`, nil, `{"b":1,"a":12.0}`, false},
		{"key added", `{"a":1}`, &key, `{"a":1,"idempotency_key":"k-1"}`, false},
		{"key replaces", `{"idempotency_key":"old"}`, &key, `{"idempotency_key":"k-1"}`, false},
		{"key only", "", &key, `{"idempotency_key":"k-1"}`, false},
		{"array", `[1]`, nil, "", true},
		{"string", `"x"`, &key, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := callArguments(json.RawMessage(tc.raw), tc.key)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tc.wantErr)
			}
			if !tc.wantErr && string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func FuzzCallArguments(f *testing.F) {
	for _, s := range []string{"", "null", `{}`, `{"a":[1,{"b":null}]}`, `[`, `{"idempotency_key":1}`, `1e999`} {
		f.Add(s, "k", true)
	}
	f.Fuzz(func(t *testing.T, raw, key string, withKey bool) {
		var k *string
		if withKey {
			k = &key
		}
		got, err := callArguments(json.RawMessage(raw), k)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if json.Unmarshal(got, &m) != nil && !(k == nil && string(got) == raw) {
			t.Errorf("arguments %q gave non-object %q", raw, got)
		}
		if withKey && utf8.ValidString(key) { // JSON carries no invalid UTF-8
			var v string
			if json.Unmarshal(m["idempotency_key"], &v) != nil || v != key {
				t.Errorf("key %q not in %s", key, got)
			}
		}
	})
}
