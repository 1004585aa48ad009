package pipeline

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestDeliveredTransportFault: with --fault-layer http the delivered event
// of F1 says the fault reached the agent at the transport level (its
// connection is dropped), at the tool layer it does not; the call event
// carries the relay's request number. Both are what duplicate.resentBy
// reads.
func TestDeliveredTransportFault(t *testing.T) {
	for _, httpLayer := range []bool{false, true} {
		h := newHarness(t, fault.NewGhostWrite(), func(o *Options) { o.FaultLayerHTTP = httpLayer })
		u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
		c := &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(`{"room":12}`), RequestSeq: 3}
		if _, err := h.p.HandleCall(context.Background(), c, u.forward); err != nil {
			t.Fatal(err)
		}
		var call, delivered *judge.Event
		evs := h.judge.list()
		for i := range evs {
			switch evs[i].Kind {
			case judge.EventCall:
				call = &evs[i]
			case judge.EventDelivered:
				delivered = &evs[i]
			}
		}
		if call == nil || call.RequestSeq != 3 {
			t.Errorf("http layer %v: call event %+v, want RequestSeq 3", httpLayer, call)
		}
		if delivered == nil || delivered.TransportFault != httpLayer {
			t.Errorf("http layer %v: delivered event %+v, want TransportFault %v", httpLayer, delivered, httpLayer)
		}
	}
}

// TestTransportKind: the kinds --fault-layer http delivers as HTTP are
// transport-level; a plugin's kind reaches the agent as a tool result.
func TestTransportKind(t *testing.T) {
	for kind, want := range map[string]bool{
		fault.KindTimeout: true, fault.KindTruncatedJSON: true, fault.KindRateLimit: true,
		fault.KindServerError: true, fault.KindChaos: true, "partial_success": false, "": false,
	} {
		if got := transportKind(kind); got != want {
			t.Errorf("transportKind(%q) = %v, want %v", kind, got, want)
		}
	}
}
