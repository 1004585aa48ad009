package main

import (
	"encoding/json"
	"slices"
	"testing"

	"github.com/cuonztech/agent-harness/sdk"
)

func TestWords(t *testing.T) {
	tests := map[string][]string{
		"check_in_guest":     {"check", "in", "guest"},
		"checkInGuest":       {"check", "in", "guest"},
		"check-in-guest":     {"check", "in", "guest"},
		"HTTPCheckIn":        {"http", "check", "in"},
		"update_status_view": {"update", "status", "view"},
		"__x__":              {"x"},
		"":                   nil,
	}
	for in, want := range tests {
		if got := words(in); !slices.Equal(got, want) {
			t.Errorf("words(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestDefaultTable(t *testing.T) {
	tests := []struct {
		name  string
		tool  string
		class sdk.Class
		ok    bool
	}{
		{"check in snake", "check_in_guest", sdk.Write, true},
		{"check in camel", "checkInGuest", sdk.Write, true},
		{"checkout", "checkout_cart", sdk.Write, true},
		{"status view", "update_status_view", sdk.Read, true},
		{"check alone is not check in", "check_availability", "", false},
		{"unlisted", "create_booking", "", false},
	}
	tb := DefaultTable()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, ok := tb.Classify(tt.tool)
			if ok != tt.ok || c.Class != tt.class {
				t.Errorf("Classify(%q) = %+v, %v; want %q, %v", tt.tool, c, ok, tt.class, tt.ok)
			}
		})
	}
}

func TestConfig(t *testing.T) {
	tb, err := ParseConfig(json.RawMessage(`{"verbs":{"sync":"write","peekAt":"read"},"tools":{"check_in_guest":"unclassified"}}`))
	if err != nil {
		t.Fatal(err)
	}
	for tool, want := range map[string]sdk.Class{
		"sync_ledger": sdk.Write, "peek_at_queue": sdk.Read, "check_in_guest": sdk.Unclassified, "check_out": sdk.Write,
	} {
		if c, ok := tb.Classify(tool); !ok || c.Class != want {
			t.Errorf("Classify(%q) = %+v, %v; want %q", tool, c, ok, want)
		}
	}
	tb, err = ParseConfig(json.RawMessage(`{"defaults":false,"verbs":{"sync":"write"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := tb.Classify("check_in_guest"); ok {
		t.Error("defaults:false kept the default table")
	}
}

func TestConfigErrors(t *testing.T) {
	for name, cfg := range map[string]string{
		"bad class":     `{"verbs":{"x":"maybe"}}`,
		"unknown field": `{"verb":{}}`,
		"empty verb":    `{"verbs":{"__":"read"}}`,
		"not an object": `[1]`,
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := ParseConfig(json.RawMessage(cfg)); err == nil {
				t.Errorf("ParseConfig(%s) succeeded", cfg)
			}
		})
	}
}

func TestHandle(t *testing.T) {
	if out := sdk.Handle(sdk.HookInit, []byte(`null`)); out != nil {
		t.Fatalf("init(null) = %s", out)
	}
	out := sdk.Handle(sdk.HookClassify, []byte(`{"name":"check_in_guest"}`))
	if want := `{"class":"write","reason":"verb table: check_in → write"}`; string(out) != want {
		t.Errorf("classify = %s, want %s", out, want)
	}
	if out := sdk.Handle(sdk.HookClassify, []byte(`{"name":"get_booking"}`)); out != nil {
		t.Errorf("classify(get_booking) = %s, want no opinion", out)
	}
	if out := sdk.Handle(sdk.HookInit, []byte(`{"verbs":{"x":"maybe"}}`)); string(out) == "" {
		t.Error("init with a bad config succeeded")
	}
}

func FuzzWords(f *testing.F) {
	for _, s := range []string{"check_in_guest", "checkInGuest", "HTTPServer", "é_Ü"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, w := range words(s) {
			if w == "" {
				t.Fatalf("words(%q) has an empty word", s)
			}
		}
	})
}
