package conformance

import (
	"encoding/json"
	"strings"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/plugin"
)

var sampleTools = []classify.Tool{
	{Name: "create_booking", Description: "Book a room.", InputSchema: json.RawMessage(`{"type":"object","properties":{"date":{"type":"string"}}}`)},
	{Name: "get_booking", Annotations: json.RawMessage(`{"readOnlyHint":true}`)},
	{Name: "check_in_guest"},
	{Name: "ünïcödé_tool", Description: strings.Repeat("long description ", 100)},
	{Name: ""},
}

func checkClassify(c *check, cl, again classify.Classifier) {
	for _, tool := range sampleTools {
		r1, ok1 := cl.Classify(tool)
		r2, ok2 := again.Classify(tool)
		if r1 != r2 || ok1 != ok2 {
			c.errorf("Classify(%q) is not deterministic: %+v %v vs %+v %v", tool.Name, r1, ok1, r2, ok2)
		}
	}
	big := classify.Tool{Name: "big", Description: strings.Repeat("x", 512<<10)}
	cl.Classify(big)
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

func checkEquivKey(c *check, e, again judge.Equivalence) {
	for _, args := range sampleArgs {
		k1, ok1, err1 := e.Key("create_booking", json.RawMessage(args))
		k2, ok2, err2 := again.Key("create_booking", json.RawMessage(args))
		if err1 != nil || err2 != nil {
			c.errorf("Key(%s): %v / %v", args, err1, err2)
		}
		if k1 != k2 || ok1 != ok2 {
			c.errorf("Key(%s) is not deterministic: %q %v vs %q %v", args, k1, ok1, k2, ok2)
		}
	}
	for _, pair := range sameOperation {
		k1, ok1, err1 := e.Key("create_booking", json.RawMessage(pair[0]))
		k2, ok2, err2 := e.Key("create_booking", json.RawMessage(pair[1]))
		if err1 != nil || err2 != nil {
			c.errorf("Key: %v / %v", err1, err2)
		}
		if ok1 && ok2 && k1 != k2 {
			c.errorf("Key separates %s and %s, which the built-in equivalence joins", pair[0], pair[1])
		}
	}
	big := `{"blob":"` + strings.Repeat("x", 512<<10) + `"}`
	if _, _, err := e.Key("create_booking", json.RawMessage(big)); err != nil {
		c.errorf("Key(512 KiB): %v", err)
	}
}

func checkEquivSame(c *check, pc, again judge.PairChecker) {
	for i, a := range sampleArgs {
		b := sampleArgs[(i+1)%len(sampleArgs)]
		for _, pair := range [][2]string{{a, a}, {a, b}} {
			s1, r1, err1 := pc.Compare("create_booking", json.RawMessage(pair[0]), json.RawMessage(pair[1]))
			s2, r2, err2 := again.Compare("create_booking", json.RawMessage(pair[0]), json.RawMessage(pair[1]))
			if err1 != nil || err2 != nil {
				c.errorf("Compare(%s, %s): %v / %v", pair[0], pair[1], err1, err2)
			}
			if s1 != s2 || r1 != r2 {
				c.errorf("Compare(%s, %s) is not deterministic", pair[0], pair[1])
			}
		}
	}
}

func checkFaults(c *check, p, q *plugin.Plugin) {
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
		c.errorf("Faults() has %d entries for %d declared names", len(fs), len(p.Manifest().Faults))
		return
	}
	for i, f := range fs {
		for _, call := range calls {
			a, b := f.Decide(call), gs[i].Decide(call)
			if a.Kind != b.Kind || string(a.Result) != string(b.Result) || a.Scenario != b.Scenario || a.Delay != b.Delay || a.DelayAfter != b.DelayAfter {
				c.errorf("fault %s: Decide(call %d) is not deterministic: %+v vs %+v", f.Name(), call.ID, a, b)
			}
			if s, ok := f.(fault.Settler); ok {
				s.Settle(call, a, true)
			}
			if s, ok := gs[i].(fault.Settler); ok {
				s.Settle(call, b, true)
			}
		}
	}
}

// manyCalls runs n rounds of every declared hook on each of g goroutines.
func manyCalls(_ *check, p *plugin.Plugin, n, g int) {
	var wg sync.WaitGroup
	for w := 0; w < g; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < n; i++ {
				args := json.RawMessage(sampleArgs[i%len(sampleArgs)])
				if cl := p.Classifier(); cl != nil {
					cl.Classify(sampleTools[i%len(sampleTools)])
				}
				if e := p.Equivalence(); e != nil {
					e.Key("create_booking", args)
				}
				if pc := p.PairChecker(); pc != nil {
					pc.Compare("create_booking", args, args)
				}
			}
		}()
	}
	wg.Wait() // a failed call fails the check (runner.run)
}
