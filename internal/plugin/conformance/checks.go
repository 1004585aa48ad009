package plugintest

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/plugin"
)

// Conformance checks that the module at path implements ABI v1 as
// sdk/ABI.md describes: it loads (exports, signatures, imports, manifest,
// init with opts.Config), answers every declared hook for a set of
// ordinary inputs without a single failure, answers the same input the
// same way on fresh instances, keeps the built-in equivalences (key
// fields, member order, exact numbers), takes inputs up to 512 KiB,
// survives many and concurrent calls, and stays enabled.
//
// opts.OnFailure and opts.Log are replaced; without opts.CacheDir a
// compilation cache shared by the test binary is used (removed by
// Cleanup).
func Conformance(t *testing.T, path string, opts plugin.Options) {
	t.Helper()
	var mu sync.Mutex
	var failures []string
	opts.OnFailure = func(name, detail string, _ bool) {
		mu.Lock()
		defer mu.Unlock()
		failures = append(failures, name+": "+detail)
	}
	opts.Log = &testLog{t: t}
	if opts.CacheDir == "" && !opts.NoCache {
		opts.CacheDir = CacheDir(t)
	}
	if opts.Timeout == 0 {
		opts.Timeout = 5 * time.Second // conformance is about behaviour, not speed
	}
	ctx := context.Background()
	p, err := plugin.Load(ctx, path, opts)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	defer p.Close(ctx)
	fresh := func(t *testing.T) *plugin.Plugin {
		q, err := plugin.Load(ctx, path, opts)
		if err != nil {
			t.Fatalf("Load: %v", err)
		}
		t.Cleanup(func() { q.Close(ctx) })
		return q
	}
	m := p.Manifest()
	if m.ABI != plugin.ABIVersion || len(m.Hooks) == 0 {
		t.Fatalf("manifest %+v", m)
	}
	if c := p.Classifier(); c != nil {
		t.Run("classify", func(t *testing.T) { checkClassify(t, c, fresh(t).Classifier()) })
	}
	if e := p.Equivalence(); e != nil {
		t.Run("equiv_key", func(t *testing.T) { checkEquivKey(t, e, fresh(t).Equivalence()) })
	}
	if c := p.PairChecker(); c != nil {
		t.Run("equiv_same", func(t *testing.T) { checkEquivSame(t, c, fresh(t).PairChecker()) })
	}
	if len(m.Faults) > 0 {
		t.Run("fault", func(t *testing.T) { checkFaults(t, p, fresh(t)) })
	}
	t.Run("many calls", func(t *testing.T) { manyCalls(t, p, 2000, 1) })
	t.Run("concurrent calls", func(t *testing.T) { manyCalls(t, p, 50, 8) })
	st := p.Status()
	if st.Disabled || st.Failures != 0 || len(failures) > 0 {
		t.Errorf("plugin failures: status %+v, reported %q", st, failures)
	}
}

type testLog struct{ t *testing.T }

func (l *testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

var sampleTools = []classify.Tool{
	{Name: "create_booking", Description: "Book a room.", InputSchema: json.RawMessage(`{"type":"object","properties":{"date":{"type":"string"}}}`)},
	{Name: "get_booking", Annotations: json.RawMessage(`{"readOnlyHint":true}`)},
	{Name: "check_in_guest"},
	{Name: "ünïcödé_tool", Description: strings.Repeat("long description ", 100)},
	{Name: ""},
}

func checkClassify(t *testing.T, c, again classify.Classifier) {
	for _, tool := range sampleTools {
		r1, ok1 := c.Classify(tool)
		r2, ok2 := again.Classify(tool)
		if r1 != r2 || ok1 != ok2 {
			t.Errorf("Classify(%q) is not deterministic: %+v %v vs %+v %v", tool.Name, r1, ok1, r2, ok2)
		}
	}
	big := classify.Tool{Name: "big", Description: strings.Repeat("x", 512<<10)}
	c.Classify(big)
}

var sampleArgs = []string{
	`{}`,
	`{"date":"2026-11-03","guest":"Ada","nights":2}`,
	`{"amount":129.00,"currency":"EUR","items":[{"sku":"a","qty":1},{"sku":"b","qty":2}]}`,
	`{"nested":{"deep":{"deeper":[1,2,3,{"x":null}]}}}`,
	`{"text":"ünïcödé \u2028 \"quoted\" \\ tab\t"}`,
	`{"big":123456789012345678901234567890}`,
}

// sameOperation lists argument pairs the built-in equivalence treats as
// one operation; a plugin key must not separate them.
var sameOperation = [][2]string{
	{`{"a":1,"b":"x"}`, `{"b":"x","a":1}`},
	{`{"n":12}`, `{"n":12.0}`},
	{`{"n":1200}`, `{"n":1.2e3}`},
	{`{"n":0}`, `{"n":-0}`},
	{`{"date":"2026-11-03"}`, `{"date":"2026-11-03","idempotency_key":"k-1"}`},
	{`{"date":"2026-11-03","Idempotency-Key":"k-1"}`, `{"date":"2026-11-03","idempotency_key":"k-2"}`},
	{`null`, `{}`},
}

func checkEquivKey(t *testing.T, e, again judge.Equivalence) {
	for _, args := range sampleArgs {
		k1, ok1, err1 := e.Key("create_booking", json.RawMessage(args))
		k2, ok2, err2 := again.Key("create_booking", json.RawMessage(args))
		if err1 != nil || err2 != nil {
			t.Errorf("Key(%s): %v / %v", args, err1, err2)
		}
		if k1 != k2 || ok1 != ok2 {
			t.Errorf("Key(%s) is not deterministic: %q %v vs %q %v", args, k1, ok1, k2, ok2)
		}
	}
	for _, pair := range sameOperation {
		k1, ok1, err1 := e.Key("create_booking", json.RawMessage(pair[0]))
		k2, ok2, err2 := e.Key("create_booking", json.RawMessage(pair[1]))
		if err1 != nil || err2 != nil {
			t.Errorf("Key: %v / %v", err1, err2)
		}
		if ok1 && ok2 && k1 != k2 {
			t.Errorf("Key separates %s and %s, which the built-in equivalence joins", pair[0], pair[1])
		}
	}
	big := `{"blob":"` + strings.Repeat("x", 512<<10) + `"}`
	if _, _, err := e.Key("create_booking", json.RawMessage(big)); err != nil {
		t.Errorf("Key(512 KiB): %v", err)
	}
}

func checkEquivSame(t *testing.T, c, again judge.PairChecker) {
	for i, a := range sampleArgs {
		b := sampleArgs[(i+1)%len(sampleArgs)]
		for _, pair := range [][2]string{{a, a}, {a, b}} {
			s1, r1, err1 := c.Compare("create_booking", json.RawMessage(pair[0]), json.RawMessage(pair[1]))
			s2, r2, err2 := again.Compare("create_booking", json.RawMessage(pair[0]), json.RawMessage(pair[1]))
			if err1 != nil || err2 != nil {
				t.Errorf("Compare(%s, %s): %v / %v", pair[0], pair[1], err1, err2)
			}
			if s1 != s2 || r1 != r2 {
				t.Errorf("Compare(%s, %s) is not deterministic", pair[0], pair[1])
			}
		}
	}
}

func checkFaults(t *testing.T, p, q *plugin.Plugin) {
	at := time.Date(2026, 11, 3, 12, 0, 0, 0, time.UTC)
	calls := []fault.Call{
		{ID: 1, Tool: "get_booking", Class: classify.Read, Arguments: json.RawMessage(`{"id":1}`), Time: at},
		{ID: 2, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(sampleArgs[1]), Time: at},
		{ID: 3, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(sampleArgs[1]), Time: at},
		{ID: 4, Tool: "not_listed", Class: classify.Unknown, Time: at},
		{ID: 5, Tool: "sync", Class: classify.Unclassified, Arguments: json.RawMessage(`null`), Time: at},
	}
	fs, gs := p.Faults(), q.Faults()
	if len(fs) != len(p.Manifest().Faults) {
		t.Fatalf("Faults() has %d entries for %d declared names", len(fs), len(p.Manifest().Faults))
	}
	for i, f := range fs {
		for _, c := range calls {
			a, b := f.Decide(c), gs[i].Decide(c)
			if a.Kind != b.Kind || string(a.Result) != string(b.Result) || a.Scenario != b.Scenario || a.Delay != b.Delay || a.DelayAfter != b.DelayAfter {
				t.Errorf("fault %s: Decide(call %d) is not deterministic: %+v vs %+v", f.Name(), c.ID, a, b)
			}
			if s, ok := f.(fault.Settler); ok {
				s.Settle(c, a, true)
			}
			if s, ok := gs[i].(fault.Settler); ok {
				s.Settle(c, b, true)
			}
		}
	}
}

// manyCalls runs n rounds of every declared hook on each of g goroutines.
func manyCalls(t *testing.T, p *plugin.Plugin, n, g int) {
	var wg sync.WaitGroup
	for w := 0; w < g; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				args := json.RawMessage(sampleArgs[i%len(sampleArgs)])
				if c := p.Classifier(); c != nil {
					c.Classify(sampleTools[i%len(sampleTools)])
				}
				if e := p.Equivalence(); e != nil {
					e.Key("create_booking", args)
				}
				if c := p.PairChecker(); c != nil {
					c.Compare("create_booking", args, args)
				}
			}
		}()
	}
	wg.Wait()
	if st := p.Status(); st.Failures != 0 {
		t.Errorf("%d failures, last: %s", st.Failures, st.LastFailure)
	}
}
