package pipeline

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// inputRequired is an MCP 2026-07-28 result asking the client for more
// input; the client then sends the call again with inputResponses.
const inputRequired = `{"resultType":"input_required","inputRequests":{"r1":{"method":"elicitation/create","params":{"message":"Which room?"}}},"requestState":"st-1"}`

// TestF1NotConsumedByIncompleteResult: F1 claims the first write, but an
// answer asking for more input did not complete it. The agent gets that
// answer, the attempt waits for its follow-up (no answer event yet), and
// F1 re-arms for the next call, which then gets the timeout. Call 2 carries
// no inputResponses: it is an attempt of its own, and call 1, never
// followed up, ends incomplete (behaviour §4.12).
func TestF1NotConsumedByIncompleteResult(t *testing.T) {
	h := newHarness(t, fault.NewGhostWrite(), nil)
	first := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(inputRequired)}}
	good := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	if r, _ := h.call(t, 1, "create_booking", classify.Write, first); string(r.Result) != inputRequired {
		t.Fatalf("first answer %s, want the upstream's input request", r.Result)
	}
	if r, _ := h.call(t, 2, "create_booking", classify.Write, good); string(r.Result) != string(fault.ErrorResult(fault.TimeoutText)) {
		t.Fatalf("re-send answered %s, want the timeout", r.Result)
	}
	if r, _ := h.call(t, 3, "create_booking", classify.Write, good); string(r.Result) != okResult {
		t.Fatalf("third answer %s, want the real result", r.Result)
	}
	want := []string{
		"call#1 create_booking write", "forwarded#1",
		"call#2 create_booking write", "forwarded#2", "answer#2 executed scenario=F1 fault=timeout", "delivered#2",
		"call#3 create_booking write", "forwarded#3", "answer#3 executed",
	}
	if got := events(h.judge); !slices.Equal(got, want) {
		t.Errorf("events\n got %q\nwant %q", got, want)
	}
}

// TestIncompleteThenResendIsNotADuplicate: with the real judge, a call
// answered input_required and sent again without a follow-up's members is
// not a DUPLICATE_EXECUTION: the first attempt, never followed up, did not
// execute on the upstream's word (behaviour §4.12). That word is all there
// is, so with the re-send that executed the operation is EXECUTION_UNKNOWN
// and the run NOT_TESTED, never PASS (red-team finding 1).
func TestIncompleteThenResendIsNotADuplicate(t *testing.T) {
	p := judgedPipeline(t, "", nil)
	for i, result := range []string{inputRequired, okResult} {
		c := &relay.ToolCall{ID: int64(i + 1), Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(`{"room":12}`)}
		forward := func(context.Context) (relay.Response, error) {
			return relay.Response{Result: json.RawMessage(result)}, nil
		}
		if _, err := p.HandleCall(context.Background(), c, forward); err != nil {
			t.Fatal(err)
		}
	}
	var run roundsRun
	endRun(t, p, &run)
	if run.verdict != report.VerdictNotTested || len(run.vs) != 0 {
		t.Errorf("verdict %s violations %+v, want NOT_TESTED without violations", run.verdict, run.vs)
	}
	if ops := run.ops; len(ops) != 1 || ops[0].Executions != 1 || ops[0].Outcome != report.OperationExecutionUnknown {
		t.Errorf("operations %+v, want one EXECUTION_UNKNOWN operation executed once", ops)
	}
}
