package relay

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
)

// cancelledThenAnswered sends a write, cancels it while the upstream runs
// it, lets the upstream answer it, then sends a read. It returns the
// agent's first answer after that (the read's, unless the cancelled
// write's reached it), the upstream's result the pipeline got, and the
// lines the upstream received.
func cancelledThenAnswered(t *testing.T, swallow bool) (first, judged string, upLines []string, stderr string) {
	release := make(chan struct{})
	// The cancellation arrives while the upstream runs the call.
	up := &fakeUpstream{tools: testTools, block: map[string]chan struct{}{"create_booking": release}}
	pl := &recordingPipeline{do: func(ctx context.Context, c *ToolCall, fwd Forward) (Response, error) {
		r, err := fwd(ctx)
		if c.Tool == "create_booking" {
			judged = string(r.Result)
		}
		return r, err
	}}
	a := startRelay(t, up, func(o *Options) { o.Pipeline = pl; o.SwallowCancel = swallow })
	a.initialize()
	a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{}}}`)
	a.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":5,"reason":"the user gave up"}}`)
	synctest.Wait()
	close(release)
	synctest.Wait()
	a.send(`{"jsonrpc":"2.0","id":6,"method":"tools/call","params":{"name":"get_booking","arguments":{}}}`)
	first = a.recv()
	a.end()
	return first, judged, up.lines(), a.stderr.String()
}

// TestRelayCancelledAnswerNotDelivered (behaviour §2.6): the upstream
// answers a write the agent cancelled; the pipeline judges that answer,
// the agent does not get it (it gave the request up), and the cancellation
// reached the upstream.
func TestRelayCancelledAnswerNotDelivered(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first, judged, lines, stderr := cancelledThenAnswered(t, false)
		if !strings.HasPrefix(first, `{"jsonrpc":"2.0","id":6,`) {
			t.Errorf("the agent got %s first, want the answer to call 6 (the cancelled call 5 is not answered)", first)
		}
		if !strings.Contains(judged, "called create_booking") {
			t.Errorf("the pipeline got %q, want the upstream's result", judged)
		}
		if !hasLine(lines, `"method":"notifications/cancelled"`) {
			t.Errorf("the cancellation did not reach the upstream: %q", lines)
		}
		if w := "[agent-harness] the answer to tools/call 5 arrived after the agent cancelled it: judged, not delivered\n"; !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	})
}

// TestRelaySwallowCancel (--on-cancel swallow): the cancellation of a call
// in flight stays with the proxy; the upstream runs the call, its answer is
// judged and not delivered.
func TestRelaySwallowCancel(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		first, judged, lines, stderr := cancelledThenAnswered(t, true)
		if !strings.HasPrefix(first, `{"jsonrpc":"2.0","id":6,`) {
			t.Errorf("the agent got %s first, want the answer to call 6", first)
		}
		if !strings.Contains(judged, "called create_booking") {
			t.Errorf("the pipeline got %q, want the upstream's result", judged)
		}
		if hasLine(lines, `"method":"notifications/cancelled"`) {
			t.Errorf("the cancellation reached the upstream: %q", lines)
		}
		if w := "[agent-harness] the agent cancelled tools/call 5; --on-cancel swallow: the cancellation was not forwarded\n"; !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q:\n%s", w, stderr)
		}
	})
}

func hasLine(lines []string, sub string) bool {
	for _, l := range lines {
		if strings.Contains(l, sub) {
			return true
		}
	}
	return false
}
