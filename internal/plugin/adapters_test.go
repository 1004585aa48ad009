package plugin_test

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/plugin"
)

func TestDatesEquivalence(t *testing.T) {
	p, f, _ := loadWith(t, goPlugin(t, "./plugins/dates"), nil)
	if p.Classifier() != nil || p.PairChecker() != nil || len(p.Faults()) != 0 {
		t.Error("dates exposes hooks it does not declare")
	}
	e := p.Equivalence()
	key := func(args string) string {
		t.Helper()
		k, ok, err := e.Key("create_booking", json.RawMessage(args))
		if err != nil || !ok || !strings.HasPrefix(k, "dates:") {
			t.Fatalf("Key(%s) = %q, %v, %v", args, k, ok, err)
		}
		return k
	}
	a := key(`{"date":"2026-11-03","guest":"Ada","idempotency_key":"k1"}`)
	if b := key(`{"guest":"Ada","date":"03.11.2026","idempotency_key":"k2"}`); a != b {
		t.Errorf("reformatted date is another operation: %s vs %s", a, b)
	}
	if b := key(`{"date":"04.11.2026","guest":"Ada"}`); a == b {
		t.Error("another date is the same operation")
	}
	if len(f.get()) != 0 {
		t.Errorf("failures %q", f.get())
	}
}

func TestKeyFieldsPassed(t *testing.T) {
	p, _, _ := loadWith(t, goPlugin(t, "./plugins/dates"), func(o *plugin.Options) { o.KeyFields = []string{"request_id"} })
	e := p.Equivalence()
	k1, _, _ := e.Key("t", json.RawMessage(`{"a":1,"request-id":"x"}`))
	k2, _, _ := e.Key("t", json.RawMessage(`{"a":1,"REQUEST_ID":"y"}`))
	k3, _, _ := e.Key("t", json.RawMessage(`{"a":1,"idempotency_key":"y"}`))
	if k1 != k2 || k1 == k3 {
		t.Errorf("keys %q %q %q: want request_id stripped, idempotency_key kept", k1, k2, k3)
	}
}

func TestVerbsClassifier(t *testing.T) {
	p, _, _ := loadWith(t, goPlugin(t, "./plugins/verbs"), nil)
	c := p.Classifier()
	tests := []struct {
		tool string
		want classify.Result
		ok   bool
	}{
		{"check_in_guest", classify.Result{Class: classify.Write, Reason: "verb table: check_in → write (plugin verbs)"}, true},
		{"update_status_view", classify.Result{Class: classify.Read, Reason: "tool table: update_status_view → read (plugin verbs)"}, true},
		{"create_booking", classify.Result{}, false},
	}
	for _, tt := range tests {
		if r, ok := c.Classify(classify.Tool{Name: tt.tool}); r != tt.want || ok != tt.ok {
			t.Errorf("Classify(%s) = %+v, %v; want %+v, %v", tt.tool, r, ok, tt.want, tt.ok)
		}
	}
}

func TestFaultpack(t *testing.T) {
	path := goPlugin(t, "./plugins/faultpack")
	at := time.Date(2026, 11, 3, 9, 0, 0, 0, time.UTC)
	read := fault.Call{ID: 1, Tool: "get", Class: classify.Read, Time: at}
	write := func(id int64) fault.Call {
		return fault.Call{ID: id, Tool: "create", Class: classify.Write, Arguments: json.RawMessage(`{"x":1}`), Time: at}
	}
	t.Run("slow_write", func(t *testing.T) {
		p, _, _ := loadWith(t, path, func(o *plugin.Options) { o.Config = json.RawMessage(`{"slow_write":{"delay_ms":250}}`) })
		s := findFault(t, p, "slow_write")
		if a := s.Decide(read); a.Scenario != "" {
			t.Errorf("read: %+v", a)
		}
		a := s.Decide(write(2))
		want := fault.Action{Kind: fault.Pass, Scenario: "slow_write", DelayAfter: 250 * time.Millisecond}
		if a.Kind != want.Kind || a.Scenario != want.Scenario || a.DelayAfter != want.DelayAfter || a.Delay != 0 || a.Fault != "" || a.Result != nil {
			t.Errorf("first write: %+v, want %+v", a, want)
		}
		if b := s.Decide(write(3)); b.Scenario != "" {
			t.Errorf("second write while the first is pending: %+v", b)
		}
		// The upstream rejected the first write: the fault re-arms.
		s.(fault.Settler).Settle(write(2), a, false)
		if b := s.Decide(write(4)); b.Scenario != "slow_write" {
			t.Errorf("write after re-arm: %+v", b)
		} else {
			s.(fault.Settler).Settle(write(4), b, true)
		}
		if b := s.Decide(write(5)); b.Scenario != "" {
			t.Errorf("write after consumption: %+v", b)
		}
	})
	t.Run("partial_success", func(t *testing.T) {
		p, _, _ := loadWith(t, path, nil)
		s := findFault(t, p, "partial_success")
		a := s.Decide(write(1))
		if a.Kind != fault.ForwardReplace || a.Scenario != "partial_success" || a.Fault != "partial_success" ||
			!strings.Contains(string(a.Result), `"isError":true`) {
			t.Errorf("first write: %+v", a)
		}
	})
	t.Run("first write is atomic", func(t *testing.T) {
		p, _, _ := loadWith(t, path, nil)
		s := findFault(t, p, "partial_success")
		var applied atomic.Int32
		var wg sync.WaitGroup
		for i := int64(1); i <= 8; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				if s.Decide(write(i)).Scenario != "" {
					applied.Add(1)
				}
			}()
		}
		wg.Wait()
		if applied.Load() != 1 {
			t.Errorf("%d of 8 concurrent writes were the first", applied.Load())
		}
	})
}

func findFault(t *testing.T, p *plugin.Plugin, name string) fault.Fault {
	t.Helper()
	for _, f := range p.Faults() {
		if f.Name() == name {
			return f
		}
	}
	t.Fatalf("no fault %s", name)
	return nil
}

// A fault hook that fails passes the call through unchanged.
func TestFaultFailurePasses(t *testing.T) {
	garbage := `{"action":"explode"}`
	path := spec{
		manifest: `{"abi":1,"name":"bad","version":"1","hooks":["fault"],"faults":["boom"]}`,
		hooks:    map[string][]byte{"ah_fault": returnData(2048, garbage)},
		data:     map[uint32]string{2048: garbage},
	}.write(t)
	p, f, _ := loadWith(t, path, nil)
	a := p.Faults()[0].Decide(fault.Call{ID: 1, Tool: "w", Class: classify.Write})
	if a.Kind != fault.Pass || a.Scenario != "" || a.Result != nil {
		t.Errorf("Decide = %+v, want a plain pass", a)
	}
	if got := f.get(); len(got) != 1 || got[0] != `bad: fault boom w: "action" "explode" is not pass, inject or execute_then_replace` {
		t.Errorf("failures %q", got)
	}
}

func TestFaultOutputValidation(t *testing.T) {
	tests := map[string]string{
		"inject without result":   `{"action":"inject"}`,
		"result without content":  `{"action":"inject","result":{"isError":true}}`,
		"negative delay":          `{"action":"pass","delay_ms":-1}`,
		"delay too long":          `{"action":"pass","delay_ms":600001}`,
		"delay after inject":      `{"action":"inject","result":{"content":[]},"delay_after_ms":5}`,
		"bad fault kind":          `{"action":"inject","result":{"content":[]},"fault":"Bad Kind"}`,
		"pass with result":        `{"action":"pass","result":{"content":[]}}`,
		"isError not a boolean":   `{"action":"inject","result":{"content":[],"isError":"definitely"}}`,
		"isError an object":       `{"action":"execute_then_replace","result":{"content":[],"isError":{"a":1}}}`,
		"content item not object": `{"action":"inject","result":{"content":[1,"x",null]}}`,
		"content item no type":    `{"action":"inject","result":{"content":[{"text":"x"}]}}`,
		"content item type null":  `{"action":"inject","result":{"content":[{"type":null,"text":"x"}]}}`,
	}
	for name, out := range tests {
		t.Run(name, func(t *testing.T) {
			path := spec{
				manifest: `{"abi":1,"name":"bad","version":"1","hooks":["fault"],"faults":["boom"]}`,
				hooks:    map[string][]byte{"ah_fault": returnData(2048, out)},
				data:     map[uint32]string{2048: out},
			}.write(t)
			p, f, _ := loadWith(t, path, nil)
			if a := p.Faults()[0].Decide(fault.Call{ID: 1, Tool: "w", Class: classify.Write}); a.Scenario != "" || a.Kind != fault.Pass {
				t.Errorf("Decide = %+v", a)
			}
			if len(f.get()) != 1 {
				t.Errorf("failures %q", f.get())
			}
		})
	}
}

// TestFaultResultForClient: behaviour §3.3 — a plugin's result reaches the
// agent as fault.Deliver makes it for the call's client; one that a client
// would turn into an exception is a plugin failure and the call passes.
func TestFaultResultForClient(t *testing.T) {
	schema := fault.Call{ID: 1, Tool: "create_entities", Class: classify.Write, OutputSchema: true, ProtocolVersion: "2025-06-18"}
	old := fault.Call{ID: 1, Tool: "w", Class: classify.Write, ProtocolVersion: "2025-03-26"}
	tests := []struct {
		name, out string
		c         fault.Call
		want      string // the delivered result; empty: refused
		failure   string
	}{
		{name: "error result, structuredContent dropped for an outputSchema tool", c: schema,
			out:  `{"action":"inject","result":{"content":[{"type":"text","text":"busy"}],"structuredContent":{"code":7},"isError":true,"_meta":{"x/y":1}}}`,
			want: `{"content":[{"type":"text","text":"busy"}],"isError":true,"_meta":{"x/y":1}}`},
		{name: "success for an outputSchema tool refused", c: schema,
			out:     `{"action":"execute_then_replace","result":{"content":[{"type":"text","text":"done"}],"structuredContent":{"entities":[]}}}`,
			failure: `bad: fault boom create_entities: "result" for create_entities: the tool declares an outputSchema, so a result without "isError": true must carry structuredContent matching it, which the host cannot check; inject an error result`},
		{name: "resource_link before 2025-06-18 refused", c: old,
			out:     `{"action":"inject","result":{"content":[{"type":"resource_link","uri":"u","name":"n"}],"isError":true}}`,
			failure: `bad: fault boom w: "result" for w: content item 0: content type "resource_link" needs protocol version 2025-06-18 or later; the session uses 2025-03-26`},
		{name: "empty content refused", c: old,
			out:     `{"action":"inject","result":{"content":[],"isError":true}}`,
			failure: `bad: fault boom w: "result" for w: "content" is empty: the model would see nothing`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := spec{
				manifest: `{"abi":1,"name":"bad","version":"1","hooks":["fault"],"faults":["boom"]}`,
				hooks:    map[string][]byte{"ah_fault": returnData(2048, tt.out)},
				data:     map[uint32]string{2048: tt.out},
			}.write(t)
			p, f, _ := loadWith(t, path, nil)
			a := p.Faults()[0].Decide(tt.c)
			if tt.want != "" {
				if string(a.Result) != tt.want || a.Scenario != "boom" || len(f.get()) != 0 {
					t.Errorf("Decide = %+v (result %s), failures %q; want result %s", a, a.Result, f.get(), tt.want)
				}
				return
			}
			if a.Scenario != "" || a.Kind != fault.Pass || a.Result != nil {
				t.Errorf("Decide = %+v, want a plain pass", a)
			}
			if got := f.get(); len(got) != 1 || got[0] != tt.failure {
				t.Errorf("failures %q\nwant %q", got, tt.failure)
			}
		})
	}
}

func TestPairChecker(t *testing.T) {
	for _, tt := range []struct {
		out    string
		want   judge.Sameness
		reason string
		fails  bool
	}{
		{`{"same":true,"reason":"same booking"}`, judge.Same, "same booking (plugin pc)", false},
		{`{"same":"possible"}`, judge.Possible, "plugin pc", false},
		{`{"same":false,"reason":"other"}`, judge.Different, "other", false},
		{``, judge.Different, "", false},
		{`{"same":"yes"}`, judge.Different, "", true},
	} {
		t.Run(tt.out, func(t *testing.T) {
			body := noOpinion
			if tt.out != "" {
				body = returnData(2048, tt.out)
			}
			path := spec{
				manifest: `{"abi":1,"name":"pc","version":"1","hooks":["equiv_same"]}`,
				hooks:    map[string][]byte{"ah_equiv_same": body},
				data:     map[uint32]string{2048: tt.out},
			}.write(t)
			p, _, _ := loadWith(t, path, nil)
			s, reason, err := p.PairChecker().Compare("t", json.RawMessage(`{"a":1}`), nil)
			if s != tt.want || reason != tt.reason || (err != nil) != tt.fails || (p.Status().Failures == 1) != tt.fails {
				t.Errorf("Compare = %v, %q, %v (status %+v)", s, reason, err, p.Status())
			}
		})
	}
}

func TestLoadAll(t *testing.T) {
	dates := goPlugin(t, "./plugins/dates")
	sameFault := spec{manifest: `{"abi":1,"name":"other","version":"1","hooks":["fault"],"faults":["slow_write"]}`,
		hooks: map[string][]byte{"ah_fault": noOpinion}}.write(t)
	verbs := goPlugin(t, "./plugins/verbs")
	faultpack := goPlugin(t, "./plugins/faultpack")
	ctx := context.Background()
	opts := testOptions(t)

	s, err := plugin.LoadAll(ctx, []string{dates, verbs, faultpack},
		map[string]json.RawMessage{"verbs": json.RawMessage(`{"verbs":{"sync":"write"}}`)}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close(ctx)
	if n := len(s.Classifiers()); n != 1 {
		t.Errorf("%d classifiers", n)
	}
	if r, ok := s.Classifiers()[0].Classify(classify.Tool{Name: "sync_ledger"}); !ok || r.Class != classify.Write {
		t.Errorf("configured verb: %+v, %v", r, ok)
	}
	if len(s.Equivalences()) != 1 || len(s.PairCheckers()) != 0 {
		t.Error("equivalences / pair checkers")
	}
	if s.Fault("slow_write") == nil || s.Fault("F1") != nil || strings.Join(s.FaultNames(), ",") != "partial_success,slow_write" {
		t.Errorf("faults %q", s.FaultNames())
	}
	want := `[{"name":"dates","version":"0.1.0","status":"ok","failures":0,"detail":""},` +
		`{"name":"verbs","version":"0.1.0","status":"ok","failures":0,"detail":""},` +
		`{"name":"faultpack","version":"0.1.0","status":"ok","failures":0,"detail":""}]`
	if got := string(s.ReportJSON()); got != want {
		t.Errorf("ReportJSON = %s\nwant %s", got, want)
	}

	for name, tc := range map[string]struct {
		paths   []string
		configs map[string]json.RawMessage
		message string
	}{
		"duplicate name":   {[]string{dates, dates}, nil, `name "dates" is already used by`},
		"unknown config":   {[]string{dates}, map[string]json.RawMessage{"nope": json.RawMessage(`{}`)}, `plugin configuration for "nope": no loaded plugin has that name`},
		"bad config":       {[]string{verbs}, map[string]json.RawMessage{"verbs": json.RawMessage(`{"verbs":1}`)}, "init failed: verbs config"},
		"duplicate faults": {[]string{faultpack, sameFault}, nil, `fault "slow_write" is already declared by plugin faultpack`},
	} {
		t.Run(name, func(t *testing.T) {
			if s, err := plugin.LoadAll(ctx, tc.paths, tc.configs, opts); err == nil || !strings.Contains(err.Error(), tc.message) {
				s.Close(ctx)
				t.Errorf("LoadAll error %v, want %q", err, tc.message)
			}
		})
	}
}

func TestNilSet(t *testing.T) {
	var s *plugin.Set
	if s.Classifiers() != nil || s.Equivalences() != nil || s.PairCheckers() != nil || s.Fault("x") != nil ||
		s.ReportJSON() != nil || s.Status() != nil || s.Close(context.Background()) != nil {
		t.Error("nil Set is not empty")
	}
}
