package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestFeedbackLines: with Options.Feedback, a fault that fires prints one
// line naming the fault, the tool, the call and what happened upstream;
// each new violation prints one line as it appears; nothing else is
// printed.
func TestFeedbackLines(t *testing.T) {
	timeout := fault.ErrorResult(fault.TimeoutText)
	tests := []struct {
		name     string
		scenario string
		// httpLayer: Options.FaultLayerHTTP (--fault-layer http).
		httpLayer bool
		action    fault.Action
		calls     []relay.Response // the upstream's answer per write call
		want      []string
	}{
		{name: "F1 ghost write, then the re-send", scenario: "F1",
			action: fault.Action{Kind: fault.ForwardReplace, Result: timeout, Scenario: "F1", Fault: fault.KindTimeout},
			calls:  []relay.Response{{Result: json.RawMessage(okResult)}, {Result: json.RawMessage(okResult)}},
			want: []string{
				"F1 fired on create_booking (call 1): executed upstream; the agent was told it timed out",
				"F1 fired on create_booking (call 2): executed upstream; the agent was told it timed out",
				"FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION) — again after a timeout; operation op-1",
			}},
		// Issue 17 (§17.9): a line each time the count grows, so the last
		// one says what the summary says (it stopped at 2).
		{name: "F1 ghost write, then two re-sends", scenario: "F1",
			action: fault.Action{Kind: fault.ForwardReplace, Result: timeout, Scenario: "F1", Fault: fault.KindTimeout},
			calls:  []relay.Response{{Result: json.RawMessage(okResult)}, {Result: json.RawMessage(okResult)}, {Result: json.RawMessage(okResult)}},
			want: []string{
				"F1 fired on create_booking (call 1): executed upstream; the agent was told it timed out",
				"F1 fired on create_booking (call 2): executed upstream; the agent was told it timed out",
				"FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION) — again after a timeout; operation op-1",
				"F1 fired on create_booking (call 3): executed upstream; the agent was told it timed out",
				"FAIL: create_booking executed 3 times (DUPLICATE_EXECUTION) — again after a timeout; operation op-1",
			}},
		{name: "F1 at the HTTP layer: the connection is dropped", scenario: "F1", httpLayer: true,
			action: fault.Action{Kind: fault.ForwardReplace, Result: timeout, Scenario: "F1", Fault: fault.KindTimeout},
			calls:  []relay.Response{{Result: json.RawMessage(okResult)}},
			want: []string{
				"F1 fired on create_booking (call 1): executed upstream; the agent's connection was dropped without an answer",
			}},
		{name: "F2 at the HTTP layer", scenario: "F2", httpLayer: true,
			action: fault.Action{Kind: fault.Inject, Result: fault.RateLimitResult(60 * time.Second), Scenario: "F2", Fault: fault.KindRateLimit, RetryAfter: 60 * time.Second},
			calls:  []relay.Response{{}},
			want:   []string{"F2 fired on create_booking (call 1): not executed upstream (not forwarded); the agent got HTTP 429 asking to retry after 60 s"}},
		{name: "F1 not applied when the upstream rejects", scenario: "F1",
			action: fault.Action{Kind: fault.ForwardReplace, Result: timeout, Scenario: "F1", Fault: fault.KindTimeout},
			calls:  []relay.Response{{Result: json.RawMessage(rejected)}},
		},
		{name: "F2 injected 429", scenario: "F2",
			action: fault.Action{Kind: fault.Inject, Result: fault.RateLimitResult(60 * time.Second), Scenario: "F2", Fault: fault.KindRateLimit, RetryAfter: 60 * time.Second},
			calls:  []relay.Response{{}},
			want:   []string{"F2 fired on create_booking (call 1): not executed upstream (not forwarded); the agent got HTTP 429 asking to retry after 60 s"}},
		{name: "F3 truncated body", scenario: "F3",
			action: fault.Action{Kind: fault.Inject, Result: fault.ErrorResult(fault.TruncatedText), Scenario: "F3", Fault: fault.KindTruncatedJSON},
			calls:  []relay.Response{{}},
			want:   []string{"F3 fired on create_booking (call 1): not executed upstream (not forwarded); the agent got a truncated JSON body"}},
		{name: "F4 marks two writes, then the duplicate", scenario: "F4",
			action: fault.Action{Kind: fault.Pass, Scenario: "F4"},
			calls:  []relay.Response{{Result: json.RawMessage(okResult)}, {Result: json.RawMessage(okResult)}},
			want: []string{
				"F4 marked create_booking (call 1) as write 1 of 2: passed through unchanged; executed upstream, and the agent got the upstream's answer",
				"F4 marked create_booking (call 2) as write 2 of 2: passed through unchanged; executed upstream, and the agent got the upstream's answer",
				"FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION); operation op-1",
			}},
		{name: "F4 write the upstream rejects", scenario: "F4",
			action: fault.Action{Kind: fault.Pass, Scenario: "F4"},
			calls:  []relay.Response{{Result: json.RawMessage(rejected)}},
			want:   []string{"F4 marked create_booking (call 1) as write 1 of 2: passed through unchanged; the upstream answered isError, and the agent got that answer"}},
		// Red team 1, finding 6: was "whether the upstream executed it is
		// unknown (the upstream's HTTP status proves the call did not
		// reach a tool)".
		{name: "F4 write an upstream status proves not executed", scenario: "F4",
			action: fault.Action{Kind: fault.Pass, Scenario: "F4"},
			calls:  []relay.Response{{Result: json.RawMessage(ownNotExecuted(relay.NotExecutedMark))}},
			want:   []string{"F4 marked create_booking (call 1) as write 1 of 2: passed through unchanged; not executed upstream (its HTTP status proves the call did not reach a tool), and the agent got an isError result naming the status"}},
		{name: "F5 server error", scenario: "F5",
			action: fault.Action{Kind: fault.Inject, Result: fault.ErrorResult(fault.ServerErrorText), Scenario: "F5", Fault: fault.KindServerError},
			calls:  []relay.Response{{}},
			want:   []string{"F5 fired on create_booking (call 1): not executed upstream (not forwarded); the agent got HTTP 500"}},
		{name: "chaos", scenario: "chaos",
			action: fault.Action{Kind: fault.Inject, Result: fault.ErrorResult(fault.ServerErrorText), Scenario: "chaos", Fault: fault.KindChaos},
			calls:  []relay.Response{{}},
			want:   []string{"chaos fired on create_booking (call 1): not executed upstream (not forwarded); the agent got HTTP 500"}},
		{name: "plugin fault replacing an executed answer", scenario: "partial",
			action: fault.Action{Kind: fault.ForwardReplace, Result: fault.ErrorResult("partly done"), Scenario: "partial", Fault: "partial_success"},
			calls:  []relay.Response{{Result: json.RawMessage(okResult)}},
			want:   []string{`partial fired on create_booking (call 1): executed upstream; the agent got an injected "partial_success" answer`}},
		{name: "plugin fault that passes, upstream gone", scenario: "slow",
			action: fault.Action{Kind: fault.Pass, Scenario: "slow"},
			calls:  []relay.Response{{Error: &relay.RPCError{Code: -32603, Message: "boom"}}},
			want:   []string{"slow fired on create_booking (call 1): passed through unchanged; whether the upstream executed it is unknown (the upstream answered JSON-RPC error -32603)"}},
		{name: "no scenario", calls: []relay.Response{{Result: json.RawMessage(okResult)}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var fb bytes.Buffer
			var f fault.Fault
			if tt.scenario != "" {
				f = &spyFault{action: tt.action}
			}
			h := newHarness(t, f, func(o *Options) {
				o.Judge = judge.New(judge.Config{Scenario: tt.scenario})
				o.Feedback = &fb
				o.FaultLayerHTTP = tt.httpLayer
			})
			for i, resp := range tt.calls {
				u := &upstream{h: h, resp: resp}
				h.call(t, int64(i+1), "create_booking", classify.Write, u)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSuffix(fb.String(), "\n"), "\n") {
				if l != "" {
					got = append(got, strings.TrimPrefix(l, "[agent-harness] "))
				}
			}
			if strings.Join(got, "\n") != strings.Join(tt.want, "\n") {
				t.Errorf("feedback lines\n got: %q\nwant: %q", got, tt.want)
			}
		})
	}
}

// TestFeedbackOff: without Options.Feedback nothing is printed, also when
// faults fire and violations appear.
func TestFeedbackOff(t *testing.T) {
	h := newHarness(t, &spyFault{action: fault.Action{Kind: fault.Pass, Scenario: "F4"}}, func(o *Options) {
		o.Judge = judge.New(judge.Config{Scenario: "F4"})
	})
	for id := int64(1); id <= 2; id++ {
		h.call(t, id, "create_booking", classify.Write, &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}})
	}
	if h.p.fb != nil || h.stderr.Len() != 0 {
		t.Errorf("feedback without Options.Feedback: %q", h.stderr.String())
	}
}

// TestSummary: the exit line names verdict, score, reason and the report
// file.
func TestSummary(t *testing.T) {
	h := newHarness(t, &spyFault{action: fault.Action{Kind: fault.Pass, Scenario: "F4"}}, func(o *Options) {
		o.Judge = judge.New(judge.Config{Scenario: "F4"})
	})
	for id := int64(1); id <= 2; id++ {
		h.call(t, id, "create_booking", classify.Write, &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}})
	}
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	want := `[agent-harness] Result: FAIL, score 0/100. Write operation op-1 of "create_booking" was executed 2 times (DUPLICATE_EXECUTION). Report: out/report.json`
	if got := h.p.Summary(); got != want {
		t.Errorf("Summary()\n got %q\nwant %q", got, want)
	}

	h = newHarness(t, nil, func(o *Options) {
		o.Judge = judge.New(judge.Config{})
		o.Report = nil
	})
	want = "[agent-harness] Result: NOT_TESTED, no score. No tool call was observed, so nothing was tested."
	if got := h.p.Summary(); got != want {
		t.Errorf("Summary() without calls or report file\n got %q\nwant %q", got, want)
	}
}
