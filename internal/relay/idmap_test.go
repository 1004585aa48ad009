package relay

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
)

// TestRelayStaleAnswerAfterIDReuse: the upstream sends a second copy of
// an answer after the agent reused the id (legal once its request was
// answered). The copy must not answer the new call: the new call gets the
// upstream's own answer to it (here: rejected), the copy is dropped with a
// warning, and the agent gets nothing else.
func TestRelayStaleAnswerAfterIDReuse(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, twice: map[string]bool{"create_booking": true}}
		var mu sync.Mutex
		var results []string
		pl := &recordingPipeline{do: func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
			r, err := fwd(ctx)
			mu.Lock()
			results = append(results, string(r.Result))
			mu.Unlock()
			return r, err
		}}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()
		call := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":1}}}`
		a.send(call)
		if got, want := a.recv(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"called create_booking"}]}}`; got != want {
			t.Fatalf("first call:\n got %s\nwant %s", got, want)
		}
		a.send(call) // the same id again
		if got, want := a.recv(), `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"rejected"}],"isError":true}}`; got != want {
			t.Errorf("second call:\n got %s\nwant %s", got, want)
		}
		a.in.Close()
		if rest, _ := io.ReadAll(a.out); len(rest) > 0 {
			t.Errorf("the agent got more: %s", rest)
		}
		<-a.done
		if len(results) != 2 || !strings.Contains(results[1], `"isError":true`) {
			t.Errorf("the pipeline saw %q; want the second call rejected", results)
		}
		if w := "[agent-harness] WARNING: the upstream sent a response to a request that is not open (id 2); it was dropped\n"; !strings.Contains(a.stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, a.stderr.String())
		}
	})
}

// TestRelayCancellationNamesTheUpstreamID: the agent's
// notifications/cancelled reaches the upstream with the id the upstream
// knows the request by; one naming a request that is not open at the
// upstream, or naming it ambiguously, is not forwarded.
func TestRelayCancellationNamesTheUpstreamID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, hang: map[string]bool{"create_booking": true}}
		a := startRelay(t, up, nil)
		a.initialize()                                                                                               // upstream id 1
		a.send(`{"jsonrpc":"2.0","id":"x","method":"tools/call","params":{"name":"create_booking","arguments":{}}}`) // upstream id 2
		// The call reaches the upstream (which does not answer it) before the
		// cancellations are read: one of a call still in the pipeline is not
		// forwarded.
		synctest.Wait()
		a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"nope"}}`)
		a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
		a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":"x","RequestId":2}}`)
		a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"r", "requestId" : "x" ,"z":1}}`)
		a.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		if got := a.recv(); got != `{"jsonrpc":"2.0","id":9,"result":{}}` {
			t.Fatalf("ping: %s", got)
		}
		a.end()
		var cancels []string
		for _, l := range up.lines() {
			if strings.Contains(l, "notifications/cancelled") {
				cancels = append(cancels, l)
			}
		}
		want := `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"reason":"r", "requestId" : 2 ,"z":1}}`
		if len(cancels) != 1 || cancels[0] != want {
			t.Errorf("the upstream got the cancellations %q\nwant only %s", cancels, want)
		}
		if w := "[agent-harness] WARNING: a notifications/cancelled of the agent names its request ambiguously"; !strings.Contains(a.stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, a.stderr.String())
		}
	})
}

// TestRelayServerRequestIDsPassUnchanged: a request of the upstream to the
// agent (roots/list) and the agent's answer keep the upstream's own ids,
// also when one equals the id the proxy gave a request of the agent: the
// two directions are separate id spaces.
func TestRelayServerRequestIDsPassUnchanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools}
		a := startRelay(t, up, nil)
		a.initialize() // upstream id 1: the same as the upstream's request below
		a.send(`{"jsonrpc":"2.0","id":"q","method":"tools/call","params":{"name":"ask_roots","arguments":{}}}`)
		if got := a.recv(); got != `{"jsonrpc":"2.0","id":1,"method":"roots/list"}` {
			t.Fatalf("the upstream's request reached the agent as %s", got)
		}
		a.send(`{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`)
		if got := a.recv(); got != `{"jsonrpc":"2.0","id":"q","result":{"content":[{"type":"text","text":"roots answered"}]}}` {
			t.Errorf("call answer %s", got)
		}
		a.end()
		found := false
		for _, l := range up.lines() {
			found = found || l == `{"jsonrpc":"2.0","id":1,"result":{"roots":[]}}`
		}
		if !found {
			t.Errorf("the agent's answer did not reach the upstream unchanged: %q", up.lines())
		}
	})
}

// TestRelayDropsToolsCallWithoutID: a tools/call without an id is a
// notification; a lenient server would execute it unjudged. It is not
// forwarded; the proxy warns on stderr and goes on.
func TestRelayDropsToolsCallWithoutID(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools}
		pl := &recordingPipeline{}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()
		msg := `{"jsonrpc":"2.0","method":"tools/call","params":{"name":"create_booking","arguments":{"room":1}}}`
		a.send(msg)
		a.send(`{"jsonrpc":"2.0","id":9,"method":"ping"}`)
		if got := a.recv(); got != `{"jsonrpc":"2.0","id":9,"result":{}}` {
			t.Fatalf("ping: %s", got)
		}
		a.end()
		for _, l := range up.lines() {
			if strings.Contains(l, "tools/call") {
				t.Errorf("the upstream got %s", l)
			}
		}
		if w := `[agent-harness] WARNING: the agent sent a tools/call without an id (tool "create_booking"); a notification cannot be answered, so it was not forwarded`; !strings.Contains(a.stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, a.stderr.String())
		}
	})
}
