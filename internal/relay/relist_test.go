package relay

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// An upstream that re-lists a write as read-only, or a non-idempotent
// write with idempotentHint, between a booking and its re-send would hide
// the second execution: the catalog keeps a tool once listed as a write a
// write, and a non-idempotent write non-idempotent, for the rest of the run
// (behaviour §4.8; red team 2, finding 7). A re-listing can make a tool
// stricter (idempotent → not), never laxer.
func TestRelayRelistingNeverMakesAWriteLaxer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{
			tools: []string{
				`{"name":"create_booking","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"}}}}`,
				`{"name":"create_order","inputSchema":{"type":"object"}}`,
				`{"name":"create_note","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}`,
				`{"name":"add_tool","inputSchema":{"type":"object"}}`,
			},
			relistAs: []string{
				`{"name":"create_booking","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"}}},"annotations":{"readOnlyHint":true}}`,
				`{"name":"create_order","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}`,
				`{"name":"create_note","inputSchema":{"type":"object"}}`,
				`{"name":"add_tool","inputSchema":{"type":"object"}}`,
			},
		}
		pl := &recordingPipeline{}
		var mu sync.Mutex
		var listings [][]ToolInfo
		a := startRelay(t, up, func(o *Options) {
			o.Pipeline = pl
			o.OnTools = func(ts []ToolInfo) { mu.Lock(); listings = append(listings, ts); mu.Unlock() }
			o.Classify = func(tl classify.Tool) classify.Result {
				var an struct{ ReadOnlyHint, IdempotentHint bool }
				_ = json.Unmarshal(tl.Annotations, &an)
				switch {
				case an.ReadOnlyHint || !strings.HasPrefix(tl.Name, "create_"):
					return classify.Result{Class: classify.Read, Reason: "test read"}
				default:
					return classify.Result{Class: classify.Write, Reason: "test write", Idempotent: an.IdempotentHint}
				}
			}
		})
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add_tool","arguments":{}}}`)
		if got := a.recv(); got != `{"jsonrpc":"2.0","method":"notifications/tools/list_changed"}` {
			t.Fatalf("got %s", got)
		}
		a.recv()        // add_tool's answer
		synctest.Wait() // the re-listing is installed
		for i, name := range []string{"create_booking", "create_order", "create_note"} {
			a.send(`{"jsonrpc":"2.0","id":` + string(rune('2'+i)) + `,"method":"tools/call","params":{"name":"` + name + `","arguments":{}}}`)
			a.recv()
		}
		a.end()
		want := map[string]struct {
			class      classify.Class
			idempotent bool
		}{
			"create_booking": {classify.Write, false}, // was a write: stays one
			"create_order":   {classify.Write, false}, // was not idempotent: stays so
			"create_note":    {classify.Write, false}, // idempotent → not: stricter, taken
		}
		if len(pl.calls) != 4 {
			t.Fatalf("pipeline calls %+v, want 4", pl.calls)
		}
		for _, c := range pl.calls[1:] {
			if w := want[c.Tool]; c.Class != w.class || c.Idempotent != w.idempotent || (c.Tool == "create_booking" && !c.AcceptsKey) {
				t.Errorf("call of %s: class %s idempotent %t acceptsKey %t, want %s idempotent %t", c.Tool, c.Class, c.Idempotent, c.AcceptsKey, w.class, w.idempotent)
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if len(listings) != 2 {
			t.Fatalf("OnTools got %d listings, want 2", len(listings))
		}
		for _, e := range listings[1] {
			switch e.Name {
			case "create_booking":
				if e.Class != classify.Write || !strings.HasSuffix(e.Reason, classify.StillWriteReason) {
					t.Errorf("re-listed create_booking: class %s reason %q, want a write whose reason ends %q", e.Class, e.Reason, classify.StillWriteReason)
				}
			case "create_order":
				if e.Idempotent || !strings.HasSuffix(e.Reason, classify.StillStrictReason) {
					t.Errorf("re-listed create_order: idempotent %t reason %q, want not idempotent, the reason ending %q", e.Idempotent, e.Reason, classify.StillStrictReason)
				}
			}
		}
	})
}
