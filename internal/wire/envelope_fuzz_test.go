package wire

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"
	"unicode/utf8"
)

// FuzzParseEnvelope checks the envelope scanner against encoding/json: it
// accepts exactly the valid JSON texts, tells objects from other values,
// and hands out the same id, method, params, result and error members.
func FuzzParseEnvelope(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"a":[1,2,{"b":null}]}}}`,
		`{"jsonrpc":"2.0","id":"a\"b","result":{"content":[]}}`,
		`{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"x"}}`,
		`{"method":"notifications/cancelled","params":{"requestId":12345678901234567890}}`,
		`[{"id":1}]`, `{"id":1,"id":2}`, `{"ID":1}`, ` {"id" : 1.0e2 } `, `{"a":"\ud800"}`, `{`, `{"a":1}x`, "",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		if len(bytes.TrimSpace(msg)) == 0 {
			return // blank lines never reach the scanner (the relay skips them)
		}
		env, err := ParseEnvelope(msg)
		valid := json.Valid(msg)
		if valid != (err == nil || errors.Is(err, ErrNotObject)) {
			t.Fatalf("json.Valid = %v, ParseEnvelope error = %v for %q", valid, err, msg)
		}
		if !valid {
			return
		}
		var m map[string]json.RawMessage
		isObject := json.Unmarshal(msg, &m) == nil && m != nil
		if isObject != (err == nil) {
			t.Fatalf("object = %v, ParseEnvelope error = %v for %q", isObject, err, msg)
		}
		if !isObject {
			return
		}
		for name, got := range map[string][]byte{"id": env.ID, "params": env.Params, "result": env.Result, "error": env.Error} {
			want, ok := m[name]
			if ok != (got != nil) || ok && !bytes.Equal(bytes.TrimSpace(want), got) {
				t.Fatalf("member %s = %q, encoding/json has %q (present %v) in %q", name, got, want, ok, msg)
			}
		}
		if raw, ok := m["method"]; ok != env.HasMethod {
			t.Fatalf("HasMethod = %v, encoding/json present %v", env.HasMethod, ok)
		} else if ok {
			// Invalid UTF-8 stays as sent in the scanner; encoding/json
			// replaces it with U+FFFD. Escapes are compared elsewhere.
			var s string
			if json.Unmarshal(raw, &s) == nil && s != env.Method && utf8.Valid(raw) && bytes.HasPrefix(bytes.TrimSpace(raw), []byte(`"`)) && !bytes.Contains(raw, []byte(`\u`)) {
				t.Fatalf("Method = %q, encoding/json %q", env.Method, s)
			}
		}
	})
}
