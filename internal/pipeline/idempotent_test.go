package pipeline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestIdempotentFlows: a call's Idempotent flag reaches the fault (F1 lets
// the idempotent write pass and fires on the next write) and the judge's
// call event (behaviour §4.8).
func TestIdempotentFlows(t *testing.T) {
	h := newHarness(t, fault.NewGhostWrite(), nil)
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	idem := &relay.ToolCall{ID: 1, Tool: "set_status", Class: classify.Write, Idempotent: true, Arguments: json.RawMessage(`{"room":12}`)}
	resp, err := h.p.HandleCall(context.Background(), idem, u.forward)
	if err != nil || string(resp.Result) != okResult {
		t.Fatalf("idempotent write: %s, %v; want the upstream's answer", resp.Result, err)
	}
	resp, err = h.call(t, 2, "create_booking", classify.Write, u)
	if err != nil || string(resp.Result) != string(fault.ErrorResult(fault.TimeoutText)) {
		t.Fatalf("next write: %s, %v; want the F1 timeout", resp.Result, err)
	}
	var calls []bool
	for _, ev := range h.judge.list() {
		if ev.Kind == "call" {
			calls = append(calls, ev.Idempotent)
		}
	}
	if len(calls) != 2 || !calls[0] || calls[1] {
		t.Errorf("judge call events idempotent = %v, want [true false]", calls)
	}
}
