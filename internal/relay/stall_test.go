package relay

import (
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
)

// TestRelayStalledUpstream: the upstream stops reading its input. Calls
// and other messages the agent sends meanwhile must not stop the proxy from
// reading the agent: each call gets its timeout answer (the wait includes
// writing the request), a request gets an error at the session end, and
// the agent's EOF ends the session.
func TestRelayStalledUpstream(t *testing.T) {
	tests := []struct {
		name  string
		calls []string // tools/call arguments after the stalling call
	}{
		{"one call of 1 MB", []string{`{"room":"` + strings.Repeat("x", 1<<20) + `"}`}},
		{"200 small calls", func() []string {
			var a []string
			for i := range 200 {
				a = append(a, `{"room":`+strconv.Itoa(i)+`}`)
			}
			return a
		}()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				up := &fakeUpstream{tools: testTools, stall: make(chan struct{})}
				defer close(up.stall)
				a := startRelay(t, up, nil)
				a.initialize()
				a.send(`{"jsonrpc":"2.0","id":"s","method":"tools/call","params":{"name":"stall","arguments":{}}}`)
				synctest.Wait() // the upstream read it and reads no more
				for i, args := range tt.calls {
					a.send(`{"jsonrpc":"2.0","id":` + strconv.Itoa(i+1) + `,"method":"tools/call","params":{"name":"create_booking","arguments":` + args + `}}`)
				}
				a.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
				a.send(`{"jsonrpc":"2.0","id":"p","method":"ping"}`)
				timeout := `"result":{"content":[{"text":"Error: the upstream MCP server did not answer within 60000 ms (agent-harness call timeout). The outcome is unknown.","type":"text"}],"isError":true}}`
				got := map[string]string{}
				for range len(tt.calls) + 1 {
					line := a.recv()
					id := line[len(`{"jsonrpc":"2.0","id":`):strings.Index(line, `,"result"`)]
					got[id] = line[len(`{"jsonrpc":"2.0","id":`)+len(id)+1:]
				}
				for i := range len(tt.calls) {
					if g := got[strconv.Itoa(i+1)]; g != timeout {
						t.Fatalf("call %d: got %.300s", i+1, g)
					}
				}
				if got[`"s"`] != timeout {
					t.Errorf("stalling call: got %.300s", got[`"s"`])
				}
				a.in.Close() // EOF ends the session although the upstream reads nothing
				rest, _ := io.ReadAll(a.out)
				if want := `{"jsonrpc":"2.0","id":"p","error":{"code":-32000,"message":"UPSTREAM_UNAVAILABLE: the upstream MCP server exited before it answered this request."}}` + "\n"; string(rest) != want {
					t.Errorf("after EOF the agent got %q, want %q", rest, want)
				}
				if err := <-a.done; err != nil {
					t.Errorf("Run: %v", err)
				}
			})
		})
	}
}
