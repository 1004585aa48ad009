package pipeline

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// leg is one tools/call of a multi-round-trip test: the params the agent
// sends (name create_booking) and the result the upstream answers if the
// call is forwarded.
type leg struct {
	extra  string // members added to params after name and arguments
	args   string
	result string
}

// first is a first leg (no input) answered input_required with state st-1.
func first(args string) leg { return leg{args: args, result: inputRequired} }

// followUp echoes st-1 with an accepted input and completes.
func followUp(args string) leg {
	return leg{args: args, extra: `,"inputResponses":{"r1":{"action":"accept","content":{"room":"12"}}},"requestState":"st-1"`, result: okResult}
}

// roundsRun is what a multi-round-trip run gives: the agent's answers,
// whether each call reached the upstream, and the final report file.
type roundsRun struct {
	answers   []string
	forwarded []bool
	verdict   string
	reason    string
	ops       []report.OperationInfo
	vs        []report.Violation
}

// runRounds sends legs through a pipeline with the real judge and fault f
// (nil: none), then ends the session.
func runRounds(t *testing.T, f fault.Fault, legs ...leg) roundsRun {
	t.Helper()
	p := judgedPipeline(t, "", f)
	var run roundsRun
	for i, l := range legs {
		params := `{"name":"create_booking","arguments":` + l.args + l.extra + `}`
		c := &relay.ToolCall{ID: int64(i + 1), Tool: "create_booking", Class: classify.Write,
			Arguments: json.RawMessage(l.args), Params: json.RawMessage(params), ProtocolVersion: "2026-07-28"}
		fwd := false
		forward := func(context.Context) (relay.Response, error) {
			fwd = true
			return relay.Response{Result: json.RawMessage(l.result)}, nil
		}
		r, err := p.HandleCall(context.Background(), c, forward)
		if err != nil {
			t.Fatal(err)
		}
		run.answers = append(run.answers, string(r.Result))
		run.forwarded = append(run.forwarded, fwd)
	}
	endRun(t, p, &run)
	return run
}

// judgedPipeline is a started pipeline with the real judge (default key
// fields), fault f (nil: none), an in-memory report and a clock that
// fires at once: the set-up of the rounds, tasks and incomplete tests.
func judgedPipeline(t *testing.T, scenario string, f fault.Fault) *Pipeline {
	t.Helper()
	p := New(Options{
		Judge:  judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: scenario}),
		Fault:  f,
		Report: &bytesReport{}, Clock: newFakeClock(true),
		Fatal: func(err error) { t.Fatal(err) },
	})
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	return p
}

// endRun ends p's session and reads the final report file's verdict, its
// reason, operations and violations into run.
func endRun(t *testing.T, p *Pipeline, run *roundsRun) {
	t.Helper()
	if err := p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Verdict string `json:"verdict"`
		Report  struct {
			VerdictReason string                 `json:"verdictReason"`
			Operations    []report.OperationInfo `json:"operations"`
			Violations    []report.Violation     `json:"violations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(p.ReportJSON(), &file); err != nil {
		t.Fatal(err)
	}
	run.verdict, run.reason, run.ops, run.vs = file.Verdict, file.Report.VerdictReason, file.Report.Operations, file.Report.Violations
}

// attemptOutcomes lists an operation's attemptLog outcomes (with the fault
// the agent saw after a slash).
func attemptOutcomes(op report.OperationInfo) []string {
	var out []string
	for _, a := range op.AttemptLog {
		s := string(a.Outcome)
		if a.Fault != "" {
			s += "/" + a.Fault
		}
		out = append(out, s)
	}
	return out
}

// TestMultiRoundTripIsOneAttempt: a call answered input_required and its
// follow-up with inputResponses and the echoed requestState are one
// attempt, executed once (behaviour §4.12) — not NOT_TESTED.
func TestMultiRoundTripIsOneAttempt(t *testing.T) {
	run := runRounds(t, nil, first(`{"room":12}`), followUp(`{"room":12}`))
	if !slices.Equal(run.answers, []string{inputRequired, okResult}) {
		t.Errorf("answers %q, want the upstream's two answers", run.answers)
	}
	if len(run.ops) != 1 || run.ops[0].Attempts != 1 || run.ops[0].Executions != 1 || run.ops[0].Outcome != report.OperationExecuted {
		t.Fatalf("operations %+v, want one EXECUTED operation of one attempt", run.ops)
	}
	if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{"executed"}) {
		t.Errorf("attemptLog %q, want [executed]", got)
	}
	if run.verdict == report.VerdictNotTested || len(run.vs) != 0 {
		t.Errorf("verdict %s violations %+v, want a judged run without violations", run.verdict, run.vs)
	}
}

// TestMultiRoundTripF1OnCompletingLeg: F1 passes the first leg (it asked
// for input, nothing ran) and fires on the follow-up, which executes while
// the agent gets the timeout; the agent's whole new round trip executes
// again: DUPLICATE_EXECUTION after a timeout, two attempts, two executions.
func TestMultiRoundTripF1OnCompletingLeg(t *testing.T) {
	run := runRounds(t, fault.NewGhostWrite(),
		first(`{"room":12}`), followUp(`{"room":12}`), first(`{"room":12}`), followUp(`{"room":12}`))
	// The timeout as fault.Deliver makes it for a 2026-07-28 call.
	timeout := `{"content":[{"type":"text","text":` + strconv.Quote(fault.TimeoutText) + `}],"isError":true,"resultType":"complete"}`
	if want := []string{inputRequired, timeout, inputRequired, okResult}; !slices.Equal(run.answers, want) {
		t.Errorf("answers\n got %q\nwant %q", run.answers, want)
	}
	if !slices.Equal(run.forwarded, []bool{true, true, true, true}) {
		t.Errorf("forwarded %v, want every leg forwarded", run.forwarded)
	}
	if run.verdict != report.VerdictFail || len(run.vs) != 1 || run.vs[0].Duplicate == nil || !run.vs[0].Duplicate.AfterTimeout {
		t.Fatalf("verdict %s violations %+v, want FAIL with one duplicate after the timeout", run.verdict, run.vs)
	}
	if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{"executed/timeout", "executed"}) {
		t.Errorf("attemptLog %q, want [executed/timeout executed]", got)
	}
}

// TestMultiRoundTripInjectedOnFirstLeg: F2, F3 and F5 answer the first leg
// without forwarding it; the agent's new round trip then completes once.
func TestMultiRoundTripInjectedOnFirstLeg(t *testing.T) {
	for _, tc := range []struct {
		name  string
		fault fault.Fault
		kind  string
	}{
		{"F2", fault.NewRateLimit(time.Millisecond), fault.KindRateLimit},
		{"F3", fault.NewTruncatedJSON(), fault.KindTruncatedJSON},
		{"F5", fault.NewServerError(), fault.KindServerError},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runRounds(t, tc.fault, first(`{"room":12}`), first(`{"room":12}`), followUp(`{"room":12}`))
			if !slices.Equal(run.forwarded, []bool{false, true, true}) {
				t.Errorf("forwarded %v, want the first leg answered by the fault", run.forwarded)
			}
			if len(run.ops) != 1 || run.ops[0].Executions != 1 {
				t.Fatalf("operations %+v, want one operation executed once", run.ops)
			}
			if got, want := attemptOutcomes(run.ops[0]), []string{"injected-not-executed/" + tc.kind, "executed"}; !slices.Equal(got, want) {
				t.Errorf("attemptLog %q, want %q", got, want)
			}
			if run.verdict == report.VerdictNotTested {
				t.Errorf("verdict NOT_TESTED, want the run judged")
			}
		})
	}
}

// TestMultiRoundTripNeverFollowedUp: a first leg the agent never followed
// up did not execute (the tool never completed); the run is judged, not
// NOT_TESTED.
func TestMultiRoundTripNeverFollowedUp(t *testing.T) {
	run := runRounds(t, nil, first(`{"room":12}`))
	if len(run.ops) != 1 || run.ops[0].Outcome != report.OperationNotExecuted || run.ops[0].Executions != 0 {
		t.Fatalf("operations %+v, want one NOT_EXECUTED operation", run.ops)
	}
	if got := attemptOutcomes(run.ops[0]); !slices.Equal(got, []string{"incomplete"}) {
		t.Errorf("attemptLog %q, want [incomplete]", got)
	}
	if run.verdict == report.VerdictNotTested {
		t.Errorf("verdict NOT_TESTED, want the run judged")
	}
}

// TestMultiRoundTripFollowUpMatching: a follow-up belongs to the oldest
// open leg of the same tool that had the requestState it echoes and the
// same arguments; a server that gives every call the same state does not
// make one operation's follow-up complete another's.
func TestMultiRoundTripFollowUpMatching(t *testing.T) {
	run := runRounds(t, nil,
		first(`{"room":12}`), first(`{"room":14}`), followUp(`{"room":14}`),
		// Echoes a state no leg had: an attempt of its own.
		leg{args: `{"room":12}`, extra: `,"inputResponses":{},"requestState":"other"`, result: okResult})
	if len(run.ops) != 2 {
		t.Fatalf("operations %+v, want two", run.ops)
	}
	byRoom := map[string][]string{}
	for _, op := range run.ops {
		byRoom[string(op.Arguments)] = attemptOutcomes(op)
	}
	if got, want := byRoom[`{"room":12}`], []string{"incomplete", "executed"}; !slices.Equal(got, want) {
		t.Errorf("room 12 attempts %q, want %q", got, want)
	}
	if got, want := byRoom[`{"room":14}`], []string{"executed"}; !slices.Equal(got, want) {
		t.Errorf("room 14 attempts %q, want %q", got, want)
	}
}

// TestMultiRoundTripDeclinedInput: the user declined the input; the
// upstream's answer to the follow-up is judged like any other (here an
// isError result: upstream rejection), still one attempt.
func TestMultiRoundTripDeclinedInput(t *testing.T) {
	declined := leg{args: `{"room":12}`, extra: `,"inputResponses":{"r1":{"action":"decline"}},"requestState":"st-1"`,
		result: `{"resultType":"complete","content":[{"type":"text","text":"booking cancelled by the user"}],"isError":true}`}
	run := runRounds(t, nil, first(`{"room":12}`), declined)
	if len(run.ops) != 1 || run.ops[0].Attempts != 1 || run.ops[0].Outcome != report.OperationUpstreamRejected {
		t.Fatalf("operations %+v, want one UPSTREAM_REJECTED operation of one attempt", run.ops)
	}
}

// injectOn answers call number n with an injected server error, passes
// every other call.
type injectOn struct{ n int64 }

func (f injectOn) Name() string { return "chaos" }
func (f injectOn) Decide(c fault.Call) fault.Action {
	if c.ID != f.n {
		return fault.Action{}
	}
	return fault.Action{Kind: fault.Inject, Scenario: "chaos", Fault: fault.KindChaos, Result: fault.ErrorResult("HTTP 500")}
}

// TestMultiRoundTripFollowUpInjected: a fault that answers the follow-up
// without forwarding it (chaos) ends the first leg incomplete and makes
// the follow-up an attempt of its own that did not execute.
func TestMultiRoundTripFollowUpInjected(t *testing.T) {
	run := runRounds(t, injectOn{n: 2}, first(`{"room":12}`), followUp(`{"room":12}`))
	if !slices.Equal(run.forwarded, []bool{true, false}) {
		t.Errorf("forwarded %v, want the follow-up answered by the fault", run.forwarded)
	}
	if len(run.ops) != 1 || run.ops[0].Executions != 0 {
		t.Fatalf("operations %+v, want one operation never executed", run.ops)
	}
	if got, want := attemptOutcomes(run.ops[0]), []string{"incomplete", "injected-not-executed/" + fault.KindChaos}; !slices.Equal(got, want) {
		t.Errorf("attemptLog %q, want %q", got, want)
	}
}
