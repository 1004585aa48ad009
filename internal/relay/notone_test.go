package relay

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
)

// A stdio upstream that answers in a JSON-RPC batch: the batch, which
// carries the proxy's own upstream ids (maybe another request's id of the
// agent), is not forwarded; the call it answers ends at once: the agent
// gets the unknown-outcome result with its own id, the pipeline an error
// (an unknown outcome for the judge), and one WARNING line says why (as the
// HTTP upstream does).
func TestRelayUpstreamBatchNotForwarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, batch: map[string]bool{"create_booking": true}}
		var got Response
		var gotErr error
		a := startRelay(t, up, func(o *Options) {
			o.Pipeline = &recordingPipeline{do: func(ctx context.Context, _ *ToolCall, fwd Forward) (Response, error) {
				got, gotErr = fwd(ctx)
				return got, gotErr
			}}
		})
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
		want := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: the upstream MCP server answered inside a JSON-RPC batch, which agent-harness does not forward. The outcome is unknown.","type":"text"}],"isError":true}}`
		if line := a.recv(); line != want {
			t.Errorf("got  %s\nwant %s", line, want)
		}
		a.end()
		if !errors.Is(gotErr, errBatchAnswer) || got.Result != nil || got.Error != nil {
			t.Errorf("forward returned %+v, %v; want errBatchAnswer (an unknown outcome)", got, gotErr)
		}
		if n := strings.Count(a.stderr.String(), "WARNING: the upstream wrote a JSON-RPC batch to stdout instead of one JSON-RPC message; it was not forwarded"); n != 1 {
			t.Errorf("%d warnings, want 1; stderr:\n%s", n, a.stderr.String())
		}
	})
}

// A stdio upstream line that is not JSON is not forwarded either (one
// WARNING line); the call it may have answered ends at its timeout.
func TestRelayUpstreamInvalidJSONNotForwarded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, garbled: map[string]bool{"create_booking": true}}
		a := startRelay(t, up, func(o *Options) { o.Pipeline = &recordingPipeline{} })
		a.initialize()
		a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
		want := `{"jsonrpc":"2.0","id":5,"result":{"content":[{"text":"Error: the upstream MCP server did not answer within 60000 ms (agent-harness call timeout). The outcome is unknown.","type":"text"}],"isError":true}}`
		if line := a.recv(); line != want {
			t.Errorf("got  %s\nwant %s", line, want)
		}
		a.end()
		if n := strings.Count(a.stderr.String(), "WARNING: the upstream wrote text that is not JSON to stdout instead of one JSON-RPC message; it was not forwarded"); n != 1 {
			t.Errorf("%d warnings, want 1; stderr:\n%s", n, a.stderr.String())
		}
	})
}
