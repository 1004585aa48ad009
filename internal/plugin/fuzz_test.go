package plugin

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
)

func FuzzParseManifest(f *testing.F) {
	for _, s := range []string{
		`{"abi":1,"name":"dates","version":"0.1.0","hooks":["equiv_key"]}`,
		`{"abi":1,"name":"fp","version":"1","hooks":["fault"],"faults":["slow_write"]}`,
		`{"abi":2}`, `{"error":"x"}`, `[]`, `{"abi":1,"name":"x","version":"1","hooks":["classify","classify"]}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseManifest(b)
		if err != nil {
			return
		}
		if m.ABI != ABIVersion || !validName(m.Name, 64) || len(m.Hooks) == 0 || m.Has(HookFault) != (len(m.Faults) > 0) {
			t.Fatalf("accepted invalid manifest %+v from %q", m, b)
		}
	})
}

func FuzzFaultOutput(f *testing.F) {
	for _, s := range []string{
		`{"action":"pass","delay_after_ms":1500}`,
		`{"action":"inject","result":{"content":[{"type":"text","text":"x"}],"isError":true},"fault":"k"}`,
		`{"action":"execute_then_replace","result":{"content":[]}}`,
		`{"action":"pass"}`, `{}`, `{"action":"inject","result":1}`,
		`{"action":"inject","result":{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1},"isError":false}}`,
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	pf := &pluginFault{p: &Plugin{opts: Options{MaxDelay: DefaultMaxDelay}}, name: "x"}
	f.Fuzz(func(t *testing.T, b []byte, schema bool) {
		a, err := pf.parse(b, fault.Call{ID: 1, Tool: "t", Class: classify.Write, OutputSchema: schema, ProtocolVersion: "2025-06-18"})
		if err != nil {
			if a.Scenario != "" {
				t.Fatal("error with an applied action")
			}
			return
		}
		if a.Delay < 0 || a.Delay > DefaultMaxDelay || a.DelayAfter < 0 || a.DelayAfter > DefaultMaxDelay {
			t.Fatalf("delay out of range: %+v", a)
		}
		if a.Result != nil && schema {
			var r map[string]json.RawMessage
			if err := json.Unmarshal(a.Result, &r); err != nil || r["structuredContent"] != nil || string(r["isError"]) != "true" {
				t.Fatalf("result for an outputSchema tool: %s", a.Result)
			}
		}
		if a.Scenario == "" && (a.Kind != 0 || a.Result != nil || a.Delay != 0 || a.DelayAfter != 0*time.Second) {
			t.Fatalf("not applied but not a plain pass: %+v", a)
		}
	})
}
