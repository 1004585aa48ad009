package e2e

import (
	"encoding/json"
	"fmt"
	"testing"
)

// TestProxyCancelledWriteJudgedNotDelivered (behaviour §2.6): the agent
// cancels a write in flight; the upstream (which ignores cancellations)
// executes it and answers. The answer is judged (one execution, equal to
// the upstream's count) and not delivered to the agent, with
// --on-cancel forward (the default) and swallow alike.
func TestProxyCancelledWriteJudgedNotDelivered(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"forward", "swallow"} {
		t.Run(mode, func(t *testing.T) {
			p := startSession(t, "--audit-tools", "off", "--on-cancel", mode)
			id := p.sendCall("create_booking", `{"room":"12","date":"2026-11-03","sleep_ms":200}`)
			p.notify("notifications/cancelled", fmt.Sprintf(`{"requestId":%d,"reason":"the user gave up"}`, id))
			p.stderr.waitFor(t, fmt.Sprintf("the answer to tools/call %d arrived after the agent cancelled it: judged, not delivered", id))
			p.call("get_booking", `{"id":"x"}`)
			if code := p.finish(); code != 0 {
				t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
			}
			for _, m := range append(p.pending, drain(p.msgs)...) {
				var r rpcResponse
				if json.Unmarshal(m, &r) == nil && string(r.ID) == fmt.Sprint(id) {
					t.Errorf("the agent got an answer to the cancelled call: %s", m)
				}
			}
			if got := p.upstreamExecutions()["create_booking"]; got != 1 {
				t.Fatalf("upstream executed create_booking %d times, want 1", got)
			}
			r := p.readReport()
			p.checkExecutions(r)
		})
	}
}

// drain returns what is left in ch, which the proxy closed on exit.
func drain(ch chan json.RawMessage) []json.RawMessage {
	var out []json.RawMessage
	for m := range ch {
		out = append(out, m)
	}
	return out
}
