package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/sdk"
)

// keyOf runs the hook through the SDK's JSON dispatch, as the host would.
func keyOf(t *testing.T, tool, args string, keyFields ...string) string {
	t.Helper()
	if keyFields == nil {
		keyFields = []string{"idempotency_key"}
	}
	in, _ := json.Marshal(map[string]any{"tool": tool, "arguments": json.RawMessage(args), "keyFields": keyFields})
	out := sdk.Handle(sdk.HookEquivKey, in)
	var o struct {
		Key   string `json:"key"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &o); err != nil || o.Error != "" || o.Key == "" {
		t.Fatalf("equiv_key(%s) = %s (%v)", args, out, err)
	}
	return o.Key
}

func TestKeySame(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"iso vs day first", `{"date":"2026-11-03","room":12}`, `{"date":"03.11.2026","room":12}`},
		{"iso vs compact", `{"date":"2026-11-03"}`, `{"date":"20261103"}`},
		{"iso vs slashes", `{"date":"2026-11-03"}`, `{"date":"2026/11/03"}`},
		{"iso vs midnight", `{"date":"2026-11-03"}`, `{"date":"2026-11-03T00:00:00Z"}`},
		{"nested and arrays", `{"stay":{"nights":["2026-11-03","2026-11-04"]}}`, `{"stay":{"nights":["03.11.2026","4.11.2026"]}}`},
		{"key field stripped", `{"date":"2026-11-03","idempotency_key":"a"}`, `{"date":"03.11.2026","idempotency_key":"b"}`},
		{"key field case and dash", `{"date":"2026-11-03","Idempotency-Key":"a"}`, `{"date":"2026-11-03"}`},
		{"member order", `{"a":1,"b":2}`, `{"b":2,"a":1}`},
		{"exact number value", `{"amount":12}`, `{"amount":12.0}`},
		{"exponent", `{"amount":1200}`, `{"amount":1.2e3}`},
		{"minus zero", `{"amount":-0}`, `{"amount":0}`},
		{"null arguments", `null`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := keyOf(t, "book", tt.a), keyOf(t, "book", tt.b); a != b {
				t.Errorf("keys differ:\n%s → %s\n%s → %s", tt.a, a, tt.b, b)
			}
		})
	}
}

func TestKeyDifferent(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"other day", `{"date":"2026-11-03"}`, `{"date":"04.11.2026"}`},
		{"number is not a date", `{"date":"20261103"}`, `{"date":20261103}`},
		{"string vs number", `{"n":"12"}`, `{"n":12}`},
		{"big integers exact", `{"n":9007199254740992}`, `{"n":9007199254740993}`},
		{"not midnight", `{"at":"2026-11-03"}`, `{"at":"2026-11-03T10:00:00Z"}`},
		{"other field", `{"date":"2026-11-03","room":1}`, `{"date":"2026-11-03","room":2}`},
		{"other key field list", `{"date":"2026-11-03","ref":"a"}`, `{"date":"2026-11-03","ref":"b"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if a, b := keyOf(t, "book", tt.a), keyOf(t, "book", tt.b); a == b {
				t.Errorf("keys equal for %s and %s", tt.a, tt.b)
			}
		})
	}
	if keyOf(t, "book", `{}`) == keyOf(t, "cancel", `{}`) {
		t.Error("keys of different tools are equal")
	}
}

func TestKeyErrors(t *testing.T) {
	for name, args := range map[string]string{"array": `[1]`, "string": `"x"`} {
		t.Run(name, func(t *testing.T) {
			in, _ := json.Marshal(map[string]any{"tool": "t", "arguments": json.RawMessage(args)})
			if out := sdk.Handle(sdk.HookEquivKey, in); !strings.Contains(string(out), `"error"`) {
				t.Errorf("equiv_key(%s) = %s, want an error", args, out)
			}
		})
	}
}

func TestManifest(t *testing.T) {
	got := string(sdk.Handle(sdk.HookManifest, nil))
	want := `{"abi":1,"name":"dates","version":"0.1.0","hooks":["equiv_key"]}`
	if got != want {
		t.Errorf("manifest = %s, want %s", got, want)
	}
}
