package relay

import (
	"testing"
	"testing/synctest"
)

// TestRelayToolCallRequestSeq: each tools/call carries its number among
// the session's requests in the order the relay read them, pings and
// notifications aside (ToolCall.RequestSeq), so the judge can tell that a
// re-send was the session's next request (duplicate.resentBy).
func TestRelayToolCallRequestSeq(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools}
		pl := &recordingPipeline{}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
		a.initialize()                                                                                             // request 1
		a.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)                                           // not a request
		a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`) // 2
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":2,"method":"ping"}`) // aside
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`) // 3
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":4,"method":"tools/list"}`) // 4
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_booking","arguments":{}}}`) // 5
		a.recv()
		if err := a.end(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		want := []int64{2, 3, 5}
		if len(pl.calls) != len(want) {
			t.Fatalf("pipeline saw %d calls, want %d", len(pl.calls), len(want))
		}
		for i, w := range want {
			if g := pl.calls[i].RequestSeq; g != w {
				t.Errorf("call %d (%s): RequestSeq %d, want %d", i, pl.calls[i].Tool, g, w)
			}
		}
	})
}
