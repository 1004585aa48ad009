package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// A call that arrives after the session end began is answered with an
// error and never forwarded: forwarded, it could execute after the final
// report and be left unjudged (a wrong PASS).
func TestCallAfterSessionEndIsNotForwarded(t *testing.T) {
	h := newHarness(t, nil, nil)
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	_, err := h.call(t, 1, "create_booking", classify.Write, u)
	if !errors.Is(err, relay.ErrSessionEnded) {
		t.Errorf("error = %v, want ErrSessionEnded", err)
	}
	if u.calls != 0 {
		t.Errorf("forwarded %d times after the session end, want 0", u.calls)
	}
}

// A call that arrives while the session end waits for the calls in flight
// is refused too; the call in flight is still judged.
func TestCallDuringSessionEndGraceIsNotForwarded(t *testing.T) {
	clock := newFakeClock(false)
	h := newHarness(t, nil, func(o *Options) { o.Clock = clock })
	h.clock = clock

	release := make(chan struct{})
	started := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		_, _ = h.p.HandleCall(context.Background(), &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write},
			func(context.Context) (relay.Response, error) {
				close(started)
				<-release
				return relay.Response{Result: json.RawMessage(okResult)}, nil
			})
	}()
	<-started
	endDone := make(chan error, 1)
	go func() { endDone <- h.p.OnSessionEnd() }()
	<-clock.armed // OnSessionEnd is waiting for the call in flight

	forwarded := false
	_, err := h.p.HandleCall(context.Background(), &relay.ToolCall{ID: 2, Tool: "create_booking", Class: classify.Write},
		func(context.Context) (relay.Response, error) {
			forwarded = true
			return relay.Response{Result: json.RawMessage(okResult)}, nil
		})
	if !errors.Is(err, relay.ErrSessionEnded) || forwarded {
		t.Errorf("call during the grace: error %v, forwarded %v; want ErrSessionEnded and not forwarded", err, forwarded)
	}
	close(release)
	wg.Wait()
	if err := <-endDone; err != nil {
		t.Fatal(err)
	}
	want := []string{"call#1 create_booking write", "forwarded#1", "answer#1 executed", "end#0"}
	if got := events(h.judge); !equalStrings(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}

// slowReport is a report writer whose every write takes d on the clock.
type slowReport struct {
	clock *fakeClock
	d     time.Duration
}

func (r *slowReport) Write([]byte) error {
	r.clock.mu.Lock()
	r.clock.now = r.clock.now.Add(r.d)
	r.clock.mu.Unlock()
	return nil
}
func (r *slowReport) Path() string { return "out/report.json" }

// The F2 deadline runs from when the agent is handed the 429 (after the
// report write), and a re-send is timed when the relay read it (before any
// wait in the pipeline): a re-send 58 s after the agent got the 429 is
// early, even though 63 s passed since the 429 was decided and 70 s by the
// time the pipeline handled the re-send.
func TestRetryAfterMeasuredFromDeliveryToRead(t *testing.T) {
	clock := newFakeClock(true)
	start := clock.Now()
	j := judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: "F2"})
	p := New(Options{
		Judge: j, Fault: fault.NewRateLimit(60 * time.Second), Report: &slowReport{clock: clock, d: 5 * time.Second},
		Clock: clock, Stderr: &discard{}, Fatal: func(error) {},
	})
	args := json.RawMessage(`{"room":"12"}`)
	noForward := func(context.Context) (relay.Response, error) {
		t.Error("the 429's call was forwarded")
		return relay.Response{}, nil
	}
	r, err := p.HandleCall(context.Background(), &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write, Arguments: args, ReadAt: start}, noForward)
	if err != nil || len(r.Result) == 0 {
		t.Fatalf("first call: %v %s", err, r.Result)
	}
	// The 429 was decided at start and handed over at start+5s.
	clock.mu.Lock()
	clock.now = start.Add(70 * time.Second)
	clock.mu.Unlock()
	_, err = p.HandleCall(context.Background(), &relay.ToolCall{ID: 2, Tool: "create_booking", Class: classify.Write, Arguments: args, ReadAt: start.Add(63 * time.Second)},
		func(context.Context) (relay.Response, error) {
			return relay.Response{Result: json.RawMessage(okResult)}, nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if v, reason := j.Verdict(); v != report.VerdictFail {
		t.Errorf("verdict %s (%s), want FAIL: the re-send came 58 s after the agent got the 429", v, reason)
	}
}

type discard struct{}

func (*discard) Write(b []byte) (int, error) { return len(b), nil }

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
