package sdk

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// withPlugin registers p for one test.
func withPlugin(t *testing.T, p Plugin) {
	old := registered
	Register(p)
	t.Cleanup(func() { registered = old })
}

func TestHandle(t *testing.T) {
	withPlugin(t, Plugin{
		Name: "t", Version: "1",
		Init: func(c json.RawMessage) error {
			if string(c) == `"bad"` {
				return errors.New("bad config")
			}
			return nil
		},
		Classify: func(tool Tool) (Classification, bool, error) {
			switch tool.Name {
			case "panic":
				panic("boom")
			case "none":
				return Classification{}, false, nil
			}
			return Classification{Class: Write, Reason: "r"}, true, nil
		},
		EquivSame: func(p Pair) (Sameness, string, error) {
			if string(p.Earlier) == string(p.Later) {
				return Same, "equal", nil
			}
			return Possible, "", nil
		},
		Faults: map[string]FaultFunc{
			"f": func(c FaultCall) (Action, error) {
				if c.Class != Write {
					return Action{}, nil
				}
				return Action{Kind: Inject, Result: ErrorResult("x"), Delay: 2 * time.Second}, nil
			},
		},
	})
	tests := []struct{ name, hook, in, want string }{
		{"manifest", HookManifest, ``, `{"abi":1,"name":"t","version":"1","hooks":["classify","equiv_same","fault"],"faults":["f"]}`},
		{"init ok", HookInit, `null`, ``},
		{"init error", HookInit, `"bad"`, `{"error":"bad config"}`},
		{"classify", HookClassify, `{"name":"x"}`, `{"class":"write","reason":"r"}`},
		{"classify no opinion", HookClassify, `{"name":"none"}`, ``},
		{"classify panic", HookClassify, `{"name":"panic"}`, `{"error":"panic: boom"}`},
		{"classify bad input", HookClassify, `[`, `{"error":"sdk: decoding classify input: unexpected end of JSON input"}`},
		{"equiv_key not registered", HookEquivKey, `{}`, ``},
		{"same", HookEquivSame, `{"tool":"t","earlier":{"a":1},"later":{"a":1}}`, `{"same":true,"reason":"equal"}`},
		{"possible", HookEquivSame, `{"tool":"t","earlier":{"a":1},"later":{"a":2}}`, `{"same":"possible"}`},
		{"fault write", HookFault, `{"scenario":"f","applied":0,"call":{"id":1,"tool":"w","class":"write","arguments":{},"time":"2026-01-01T00:00:00Z"}}`,
			`{"action":"inject","result":{"content":[{"text":"x","type":"text"}],"isError":true},"delay_ms":2000}`},
		{"fault read", HookFault, `{"scenario":"f","applied":0,"call":{"id":1,"tool":"r","class":"read","arguments":{},"time":"2026-01-01T00:00:00Z"}}`, ``},
		{"fault unknown", HookFault, `{"scenario":"g","call":{}}`, `{"error":"sdk: unknown fault g"}`},
		{"unknown hook", "teleport", ``, `{"error":"sdk: unknown hook teleport"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(Handle(tt.hook, []byte(tt.in))); got != tt.want {
				t.Errorf("Handle(%s, %s) = %s, want %s", tt.hook, tt.in, got, tt.want)
			}
		})
	}
}

func TestHandleUnregistered(t *testing.T) {
	withPlugin(t, Plugin{})
	registered = nil
	if got := string(Handle(HookManifest, nil)); got != `{"error":"sdk: no plugin registered (call sdk.Register from an init function)"}` {
		t.Errorf("Handle = %s", got)
	}
}
