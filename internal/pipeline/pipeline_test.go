package pipeline

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

const okResult = `{"content":[{"type":"text","text":"booked B-1"}],"structuredContent":{"id":"B-1"}}`
const rejected = `{"content":[{"type":"text","text":"room is full"}],"isError":true}`

type harness struct {
	p      *Pipeline
	judge  *fakeJudge
	report *fakeReport
	clock  *fakeClock
	stderr *bytes.Buffer
	fatal  []error
	mu     sync.Mutex
}

func newHarness(t *testing.T, f fault.Fault, mutate func(*Options)) *harness {
	t.Helper()
	h := &harness{judge: &fakeJudge{}, report: &fakeReport{}, clock: newFakeClock(true), stderr: &bytes.Buffer{}}
	opts := Options{
		Judge: h.judge, Fault: f, Report: h.report, Clock: h.clock, Stderr: h.stderr, AuditTools: true,
		Fatal: func(err error) { h.mu.Lock(); h.fatal = append(h.fatal, err); h.mu.Unlock() },
	}
	if mutate != nil {
		mutate(&opts)
	}
	h.p = New(opts)
	return h
}

// upstream is a fake forward: it records whether it ran and what the last
// report write showed at that moment, then answers.
type upstream struct {
	h        *harness
	calls    int
	resp     relay.Response
	err      error
	reportAt []fileSummary
}

func (u *upstream) forward(ctx context.Context) (relay.Response, error) {
	u.calls++
	u.reportAt = append(u.reportAt, u.h.report.last())
	return u.resp, u.err
}

func (h *harness) call(t *testing.T, id int64, tool string, class classify.Class, u *upstream) (relay.Response, error) {
	t.Helper()
	c := &relay.ToolCall{ID: id, Tool: tool, Class: class, Arguments: json.RawMessage(`{"room":12}`)}
	return h.p.HandleCall(context.Background(), c, u.forward)
}

func events(j *fakeJudge) []string {
	var out []string
	for _, ev := range j.list() {
		out = append(out, evString(ev))
	}
	return out
}

func TestHandleCall(t *testing.T) {
	timeout := string(fault.ErrorResult(fault.TimeoutText))
	tests := []struct {
		name        string
		fault       func() fault.Fault
		class       classify.Class
		resp        relay.Response
		err         error
		wantForward bool
		wantResult  string
		wantErr     error
		wantEvents  []string
	}{
		{
			name: "F1 executed: agent gets the timeout", fault: func() fault.Fault { return fault.NewGhostWrite() },
			class: classify.Write, resp: relay.Response{Result: json.RawMessage(okResult)},
			wantForward: true, wantResult: timeout,
			wantEvents: []string{"call#1 create_booking write", "forwarded#1", "answer#1 executed scenario=F1 fault=timeout", "delivered#1"},
		},
		{
			name: "F1 upstream isError: agent gets the real error, F1 not applied", fault: func() fault.Fault { return fault.NewGhostWrite() },
			class: classify.Write, resp: relay.Response{Result: json.RawMessage(rejected)},
			wantForward: true, wantResult: rejected,
			wantEvents: []string{"call#1 create_booking write", "forwarded#1", "answer#1 upstream-rejected"},
		},
		{
			name: "F1 no answer: unknown, relay's error", fault: func() fault.Fault { return fault.NewGhostWrite() },
			class: classify.Write, err: relay.ErrNoAnswer,
			wantForward: true, wantErr: relay.ErrNoAnswer,
			wantEvents: []string{"call#1 create_booking write", "forwarded#1", "answer#1 unknown"},
		},
		{
			name: "F2 injects 429 without forwarding", fault: func() fault.Fault { return fault.NewRateLimit(60 * time.Second) },
			class: classify.Write, wantResult: string(fault.RateLimitResult(60 * time.Second)),
			wantEvents: []string{"call#1 create_booking write", "answer#1 injected-not-executed scenario=F2 fault=rate_limit retryAfterMs=60000", "delivered#1"},
		},
		{
			name: "F3 injects the truncated body", fault: func() fault.Fault { return fault.NewTruncatedJSON() },
			class: classify.Write, wantResult: string(fault.ErrorResult(`{"`)),
			wantEvents: []string{"call#1 create_booking write", "answer#1 injected-not-executed scenario=F3 fault=truncated_json", "delivered#1"},
		},
		{
			name: "F4 passes and marks the scenario", fault: func() fault.Fault { return fault.NewPassTwice() },
			class: classify.Write, resp: relay.Response{Result: json.RawMessage(okResult)},
			wantForward: true, wantResult: okResult,
			wantEvents: []string{"call#1 create_booking write", "forwarded#1", "answer#1 executed scenario=F4"},
		},
		{
			name: "F5 injects the 500", fault: func() fault.Fault { return fault.NewServerError() },
			class: classify.Write, wantResult: string(fault.ErrorResult(fault.ServerErrorText)),
			wantEvents: []string{"call#1 create_booking write", "answer#1 injected-not-executed scenario=F5 fault=server_error", "delivered#1"},
		},
		{
			name: "unlisted tool: forwarded, unknown-tool, scenario stays armed", fault: func() fault.Fault { return fault.NewGhostWrite() },
			class: classify.Unknown, resp: relay.Response{Error: &relay.RPCError{Code: -32602, Message: "unknown tool"}},
			wantForward: true, wantResult: "",
			wantEvents: []string{"call#1 create_booking unknown", "forwarded#1", "answer#1 unknown-tool"},
		},
		{
			name: "JSON-RPC error from upstream: unknown", fault: func() fault.Fault { return nil },
			class: classify.Write, resp: relay.Response{Error: &relay.RPCError{Code: -32603, Message: "internal"}},
			wantForward: true,
			wantEvents:  []string{"call#1 create_booking write", "forwarded#1", "answer#1 unknown"},
		},
		{
			name: "result that is not an object: unknown", fault: func() fault.Fault { return nil },
			class: classify.Write, resp: relay.Response{Result: json.RawMessage(`"ok"`)},
			wantForward: true, wantResult: `"ok"`,
			wantEvents: []string{"call#1 create_booking write", "forwarded#1", "answer#1 unknown"},
		},
		{
			name: "plain relay read", fault: func() fault.Fault { return nil },
			class: classify.Read, resp: relay.Response{Result: json.RawMessage(okResult)},
			wantForward: true, wantResult: okResult,
			wantEvents: []string{"call#1 create_booking read", "forwarded#1", "answer#1 executed"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.fault(), nil)
			u := &upstream{h: h, resp: tt.resp, err: tt.err}
			got, err := h.call(t, 1, "create_booking", tt.class, u)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("error = %v, want %v", err, tt.wantErr)
			}
			if string(got.Result) != tt.wantResult {
				t.Errorf("result\n got %s\nwant %s", got.Result, tt.wantResult)
			}
			if (u.calls == 1) != tt.wantForward || u.calls > 1 {
				t.Errorf("forwarded %d times, want forwarded=%v", u.calls, tt.wantForward)
			}
			if ev := events(h.judge); !slices.Equal(ev, tt.wantEvents) {
				t.Errorf("events\n got %q\nwant %q", ev, tt.wantEvents)
			}
			// behaviour §5: the file shows the call in flight before the upstream
			// may execute it, and the answer before the agent gets it.
			if tt.wantForward {
				at := u.reportAt[0].Events
				if len(at) == 0 || at[len(at)-1] != "forwarded#1" {
					t.Errorf("report file when forwarding: %q, want it to end with forwarded#1", at)
				}
			}
			// The delivered event follows the write that showed the answer.
			wantFile := slices.DeleteFunc(slices.Clone(tt.wantEvents), func(e string) bool { return strings.HasPrefix(e, "delivered#") })
			if last := h.report.last().Events; !slices.Equal(last, wantFile) {
				t.Errorf("report file after the call: %q, want %q", last, wantFile)
			}
		})
	}
}

func TestResponseDigest(t *testing.T) {
	h := newHarness(t, nil, nil)
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	if _, err := h.call(t, 1, "create_booking", classify.Write, u); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte(okResult))
	evs := h.judge.list()
	if got := evs[len(evs)-1].ResponseDigest; got != hex.EncodeToString(sum[:]) {
		t.Errorf("digest = %q, want sha256 of the result bytes", got)
	}
}

// TestF1RearmsAfterRejection: behaviour §3 — an upstream isError leaves F1
// armed; the next write gets the timeout.
func TestF1RearmsAfterRejection(t *testing.T) {
	h := newHarness(t, fault.NewGhostWrite(), nil)
	bad := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(rejected)}}
	good := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	if r, _ := h.call(t, 1, "create_booking", classify.Write, bad); string(r.Result) != rejected {
		t.Fatalf("first answer %s, want the upstream's error", r.Result)
	}
	if r, _ := h.call(t, 2, "create_booking", classify.Write, good); string(r.Result) != string(fault.ErrorResult(fault.TimeoutText)) {
		t.Fatalf("second answer %s, want the timeout", r.Result)
	}
	if r, _ := h.call(t, 3, "create_booking", classify.Write, good); string(r.Result) != okResult {
		t.Fatalf("third answer %s, want the real result", r.Result)
	}
}

// TestUnjudgedToolsNeverReachTheFault: behaviour §2.2.
func TestUnjudgedToolsNeverReachTheFault(t *testing.T) {
	spy := &spyFault{action: fault.Action{Kind: fault.Inject, Result: fault.ErrorResult("x"), Scenario: "spy", Fault: "spy"}}
	h := newHarness(t, spy, nil)
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	h.call(t, 1, "sync_ledger", classify.Unclassified, u)
	h.call(t, 2, "nope", classify.Unknown, u)
	h.call(t, 3, "get_booking", classify.Read, u)
	h.call(t, 4, "create_booking", classify.Write, u)
	if !slices.Equal(spy.seen, []int64{3, 4}) {
		t.Errorf("fault saw calls %v, want [3 4]", spy.seen)
	}
}

// TestInjectedResultForClient: behaviour §3.3 — every injected or replacing
// result reaches the agent as fault.Deliver makes it for the call: no
// structuredContent for a tool with an outputSchema (F2's retry_after in
// _meta), and a result no client would accept is not delivered at all.
func TestInjectedResultForClient(t *testing.T) {
	schemaCall := func(h *harness, u *upstream) (relay.Response, error) {
		c := &relay.ToolCall{ID: 1, Tool: "create_entities", Class: classify.Write, Arguments: json.RawMessage(`{}`),
			OutputSchema: true, ProtocolVersion: "2025-11-25"}
		return h.p.HandleCall(context.Background(), c, u.forward)
	}
	withSC := `{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":1},"isError":true}`
	tests := []struct {
		name        string
		fault       fault.Fault
		wantResult  string
		wantForward bool
		wantEvent   string
	}{
		{"F2 for an outputSchema tool: retry_after in _meta", fault.NewRateLimit(60 * time.Second),
			string(fault.RateLimitMetaResult(60 * time.Second)), false,
			"answer#1 injected-not-executed scenario=F2 fault=rate_limit retryAfterMs=60000"},
		{"injected structuredContent dropped", &spyFault{action: fault.Action{Kind: fault.Inject, Result: json.RawMessage(withSC), Scenario: "spy", Fault: "spy"}},
			`{"content":[{"type":"text","text":"x"}],"isError":true}`, false, "answer#1 injected-not-executed scenario=spy fault=spy"},
		{"replacing structuredContent dropped", &spyFault{action: fault.Action{Kind: fault.ForwardReplace, Result: json.RawMessage(withSC), Scenario: "spy", Fault: "spy"}},
			`{"content":[{"type":"text","text":"x"}],"isError":true}`, true, "answer#1 executed scenario=spy fault=spy"},
		{"a non-error injected result is not delivered: the call passes", &spyFault{action: fault.Action{Kind: fault.Inject, Result: json.RawMessage(`{"content":[{"type":"text","text":"fake"}]}`), Scenario: "spy", Fault: "spy"}},
			okResult, true, "answer#1 executed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.fault, nil)
			u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
			got, err := schemaCall(h, u)
			if err != nil || string(got.Result) != tt.wantResult {
				t.Errorf("result\n got %s, %v\nwant %s", got.Result, err, tt.wantResult)
			}
			if (u.calls == 1) != tt.wantForward {
				t.Errorf("forwarded %d times, want %v", u.calls, tt.wantForward)
			}
			// The answer, then the hand-over of an injected answer.
			ev := events(h.judge)
			if n := len(ev); n > 0 && ev[n-1] == "delivered#1" {
				ev = ev[:n-1]
			}
			if len(ev) == 0 || ev[len(ev)-1] != tt.wantEvent {
				t.Errorf("events %q, want the last %q", ev, tt.wantEvent)
			}
		})
	}
}

func TestDelays(t *testing.T) {
	spy := &spyFault{action: fault.Action{Kind: fault.ForwardReplace, Result: fault.ErrorResult("late"), Scenario: "slow", Fault: "slow",
		Delay: 3 * time.Second, DelayAfter: 5 * time.Second}}
	h := newHarness(t, spy, nil)
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	start := h.clock.Now()
	if _, err := h.call(t, 1, "create_booking", classify.Write, u); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(h.clock.waits, []time.Duration{3 * time.Second, 5 * time.Second}) {
		t.Errorf("waits %v, want [3s 5s]", h.clock.waits)
	}
	evs := h.judge.list()
	if got := evs[1].Time.Sub(start); got != 3*time.Second {
		t.Errorf("forwarded after %v, want 3s", got)
	}
	if got := evs[2].Time.Sub(start); got != 8*time.Second {
		t.Errorf("answered after %v, want 8s", got)
	}
	if !slices.Equal(spy.settled, []bool{true}) {
		t.Errorf("settled %v, want [true]", spy.settled)
	}
}

// TestReportWriteFailure: one stderr line, Fatal before the agent gets the
// answer, and no later call is forwarded.
func TestReportWriteFailure(t *testing.T) {
	tests := []struct {
		name        string
		failAfter   int
		fault       fault.Fault
		wantForward int
	}{
		{"before forwarding", 0, nil, 0},
		{"after the answer", 1, nil, 1},
		{"injected answer", 0, fault.NewServerError(), 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.fault, nil)
			h.report.fail, h.report.failAfter = true, tt.failAfter
			u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
			got, err := h.call(t, 1, "create_booking", classify.Write, u)
			if err == nil || got.Result != nil {
				t.Fatalf("agent got %s, %v; want no answer", got.Result, err)
			}
			if len(h.fatal) < 1 || !errors.Is(h.fatal[0], errDiskFull) {
				t.Errorf("Fatal calls %v, want one with the write error", h.fatal)
			}
			wantLine := "[agent-harness] cannot write report file out/report.json: " + errDiskFull.Error() + "\n"
			if h.stderr.String() != wantLine {
				t.Errorf("stderr %q, want %q", h.stderr.String(), wantLine)
			}
			if u.calls != tt.wantForward {
				t.Errorf("forwarded %d times, want %d", u.calls, tt.wantForward)
			}
			if _, err := h.call(t, 2, "create_booking", classify.Write, u); err == nil || u.calls != tt.wantForward {
				t.Errorf("later call: err %v, forwards %d; want an error and no forward", err, u.calls)
			}
			if strings.Count(h.stderr.String(), "\n") != 1 {
				t.Errorf("stderr has more than one line: %q", h.stderr.String())
			}
			if len(h.fatal) != 2 {
				t.Errorf("Fatal called %d times, want once per call", len(h.fatal))
			}
			if err := h.p.OnSessionEnd(); !errors.Is(err, errDiskFull) {
				t.Errorf("OnSessionEnd = %v, want the write error at once", err)
			}
		})
	}
}

func TestStartupReports(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) {
		o.Mode = ModeChaos
		o.Chaos = &report.ChaosInfo{Seed: 42, ErrorRate: 0.25}
	})
	if err := h.p.Start(); err != nil {
		t.Fatal(err)
	}
	if got := h.report.last(); got.Status != report.StatusStarting || got.Mode != ModeChaos || got.Chaos == nil || got.Chaos.Seed != 42 {
		t.Errorf("startup report %+v", got)
	}
	if err := h.p.StartupFailed(errors.New("starting upstream: exec: \"nope\": executable file not found in $PATH")); err != nil {
		t.Fatal(err)
	}
	if got := h.report.last(); got.Status != report.StatusFailed || !strings.Contains(got.StartupError, "executable file not found") {
		t.Errorf("failed-start report %+v", got)
	}
}

func TestToolClassificationAndStatus(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.p.Start()
	list := json.RawMessage(`[{"name":"create_booking","class":"write","reason":"default write pattern","keyFields":[]}]`)
	if err := h.p.SetToolClassification(list); err != nil {
		t.Fatal(err)
	}
	got := h.report.last()
	if got.Status != report.StatusRunning || string(got.Tools) != string(list) {
		t.Errorf("report %+v, want running with the tool list", got)
	}
}

// TestSessionEndGrace: a call in flight at session end gets the grace; if
// it answers within it, it counts; otherwise EventEnd comes first and the
// late answer is dropped.
func TestSessionEndGrace(t *testing.T) {
	for _, answersInGrace := range []bool{true, false} {
		name := map[bool]string{true: "answer within grace", false: "grace runs out"}[answersInGrace]
		t.Run(name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			h.clock.auto = false
			release := make(chan struct{})
			forwarding := make(chan struct{})
			done := make(chan struct{})
			go func() {
				defer close(done)
				c := &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write}
				h.p.HandleCall(context.Background(), c, func(context.Context) (relay.Response, error) {
					close(forwarding)
					<-release
					return relay.Response{Result: json.RawMessage(okResult)}, nil
				})
			}()
			<-forwarding
			ended := make(chan error)
			go func() { ended <- h.p.OnSessionEnd() }()
			// OnSessionEnd must start the grace timer rather than return.
			select {
			case d := <-h.clock.armed:
				if d != DefaultGrace {
					t.Errorf("grace %v, want %v", d, DefaultGrace)
				}
			case err := <-ended:
				t.Fatalf("OnSessionEnd returned %v with a call in flight", err)
			}
			if answersInGrace {
				close(release)
				<-done
			} else {
				h.clock.fire()
			}
			if err := <-ended; err != nil {
				t.Fatal(err)
			}
			want := []string{"call#1 create_booking write", "forwarded#1", "answer#1 executed", "end#0"}
			if !answersInGrace {
				want = []string{"call#1 create_booking write", "forwarded#1", "end#0"}
				close(release)
				<-done
			}
			if ev := events(h.judge); !slices.Equal(ev, want) {
				t.Errorf("events %q, want %q", ev, want)
			}
			if got := h.report.last(); got.Status != report.StatusFinished || !slices.Equal(got.Events, want) {
				t.Errorf("final report %+v, want finished with %q", got, want)
			}
		})
	}
}

func TestSessionEndWithoutCallsDoesNotWait(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.clock.auto = false
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	if len(h.clock.waits) != 0 {
		t.Errorf("waited %v with nothing in flight", h.clock.waits)
	}
	if err := h.p.OnSessionEnd(); err != nil || len(events(h.judge)) != 1 {
		t.Errorf("second OnSessionEnd: %v, events %q", err, events(h.judge))
	}
}

// TestConcurrentCallsReportCoversEachAnswer: every call returns only after
// a report write that includes its answer; the last write has everything.
func TestConcurrentCallsReportCoversEachAnswer(t *testing.T) {
	h := newHarness(t, fault.NewGhostWrite(), nil)
	const n = 40
	var wg sync.WaitGroup
	var mu sync.Mutex
	timeouts := 0
	for i := range n {
		wg.Go(func() {
			id := int64(i + 1)
			c := &relay.ToolCall{ID: id, Tool: "create_booking", Class: classify.Write}
			r, err := h.p.HandleCall(context.Background(), c, func(context.Context) (relay.Response, error) {
				return relay.Response{Result: json.RawMessage(okResult)}, nil
			})
			if err != nil {
				t.Error(err)
			}
			answer := "answer#" + itoa(id)
			found := false
			for _, e := range h.report.last().Events {
				found = found || strings.HasPrefix(e, answer+" ")
			}
			// A later write may be the last one; it still includes this answer.
			if !found {
				t.Errorf("call %d returned before a report with its answer", id)
			}
			mu.Lock()
			if string(r.Result) == string(fault.ErrorResult(fault.TimeoutText)) {
				timeouts++
			}
			mu.Unlock()
		})
	}
	wg.Wait()
	if timeouts != 1 {
		t.Errorf("%d calls got the timeout, want exactly 1", timeouts)
	}
	// Each call's call, forwarded and answer events; the delivered event
	// of the F1 answer is not written on its own.
	got := 0
	for _, e := range h.report.last().Events {
		if !strings.HasPrefix(e, "delivered#") {
			got++
		}
	}
	if got != 3*n {
		t.Errorf("last report has %d call events, want %d", got, 3*n)
	}
}

func itoa(i int64) string { b, _ := json.Marshal(i); return string(b) }

func TestOnTools(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.p.OnTools([]relay.ToolInfo{{Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}}})
	want := `[{"name":"create_booking","class":"write","reason":"default write pattern","keyFields":["idempotency_key"]}]`
	if got := h.report.last(); got.Status != report.StatusRunning || string(got.Tools) != want {
		t.Errorf("report %+v, want running with %s", got, want)
	}
}

// TestReportFailureOutsideCalls: start and session end return the error
// (the CLI exits 1) instead of calling Fatal; the tool listing calls Fatal.
func TestReportFailureOutsideCalls(t *testing.T) {
	h := newHarness(t, nil, nil)
	h.report.fail = true
	if err := h.p.Start(); !errors.Is(err, errDiskFull) {
		t.Errorf("Start = %v, want the write error", err)
	}
	if err := h.p.OnSessionEnd(); !errors.Is(err, errDiskFull) {
		t.Errorf("OnSessionEnd = %v, want the write error", err)
	}
	if len(h.fatal) != 0 {
		t.Errorf("Fatal called %d times outside calls", len(h.fatal))
	}
	h.p.OnTools(nil)
	if len(h.fatal) != 1 {
		t.Errorf("OnTools after a failure: Fatal called %d times, want 1", len(h.fatal))
	}
	if strings.Count(h.stderr.String(), "\n") != 1 {
		t.Errorf("stderr %q, want one line", h.stderr.String())
	}
}
