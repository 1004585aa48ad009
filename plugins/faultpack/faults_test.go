package main

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/sdk"
)

func TestFaults(t *testing.T) {
	write := sdk.FaultCall{Class: sdk.Write, Tool: "create_booking", ID: 1}
	read := sdk.FaultCall{Class: sdk.Read, Tool: "get_booking", ID: 1}
	later := sdk.FaultCall{Class: sdk.Write, Tool: "create_booking", ID: 2, Applied: 1}
	cfg := DefaultConfig()
	tests := []struct {
		name string
		got  sdk.Action
		want sdk.Action
	}{
		{"slow first write", SlowWrite(cfg, write), sdk.Action{Kind: sdk.Pass, DelayAfter: 1500 * time.Millisecond}},
		{"slow read passes", SlowWrite(cfg, read), sdk.Action{}},
		{"slow second write passes", SlowWrite(cfg, later), sdk.Action{}},
		{"partial read passes", PartialSuccess(cfg, read), sdk.Action{}},
		{"partial second write passes", PartialSuccess(cfg, later), sdk.Action{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got.Kind != tt.want.Kind || tt.got.DelayAfter != tt.want.DelayAfter || tt.got.Delay != tt.want.Delay || tt.got.Result != nil {
				t.Errorf("got %+v, want %+v", tt.got, tt.want)
			}
		})
	}
	a := PartialSuccess(cfg, write)
	if a.Kind != sdk.ExecuteThenReplace || a.Fault != "partial_success" || string(a.Result) != string(sdk.ErrorResult(DefaultPartialText)) {
		t.Errorf("partial first write = %+v", a)
	}
}

func TestConfig(t *testing.T) {
	c, err := ParseConfig(json.RawMessage(`{"slow_write":{"delay_ms":250},"partial_success":{"text":"boom"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if c.slowDelay != 250*time.Millisecond || c.partialText != "boom" {
		t.Errorf("config = %+v", c)
	}
	for _, bad := range []string{`{"slow_write":{"delay_ms":-1}}`, `{"slow":{}}`, `[]`} {
		if _, err := ParseConfig(json.RawMessage(bad)); err == nil {
			t.Errorf("ParseConfig(%s) succeeded", bad)
		}
	}
}

func TestHandle(t *testing.T) {
	if got, want := string(sdk.Handle(sdk.HookManifest, nil)),
		`{"abi":1,"name":"faultpack","version":"0.1.0","hooks":["fault"],"faults":["partial_success","slow_write"]}`; got != want {
		t.Errorf("manifest = %s, want %s", got, want)
	}
	in := `{"scenario":"slow_write","applied":0,"call":{"id":1,"tool":"create_booking","class":"write","arguments":{},"time":"2026-01-01T00:00:00Z"}}`
	if got, want := string(sdk.Handle(sdk.HookFault, []byte(in))), `{"action":"pass","delay_after_ms":1500}`; got != want {
		t.Errorf("slow_write = %s, want %s", got, want)
	}
	in = `{"scenario":"partial_success","applied":0,"call":{"id":1,"tool":"create_booking","class":"write","arguments":{},"time":"2026-01-01T00:00:00Z"}}`
	want := `{"action":"execute_then_replace","result":{"content":[{"text":"` + DefaultPartialText + `","type":"text"}],"isError":true},"fault":"partial_success"}`
	if got := string(sdk.Handle(sdk.HookFault, []byte(in))); got != want {
		t.Errorf("partial_success = %s, want %s", got, want)
	}
}
