package pipeline

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

func TestOutcomeOf(t *testing.T) {
	tests := []struct {
		name   string
		class  classify.Class
		result string
		rpc    *relay.RPCError
		err    error
		want   judge.Outcome
	}{
		{"result without isError executed", classify.Write, `{"content":[]}`, nil, nil, judge.Executed},
		{"error only in the text still executed", classify.Write, `{"content":[{"type":"text","text":"error: room is full"}]}`, nil, nil, judge.Executed},
		{"isError false executed", classify.Write, `{"isError":false}`, nil, nil, judge.Executed},
		{"isError true rejected", classify.Write, `{"isError" : true }`, nil, nil, judge.UpstreamRejected},
		{"isError marked unknown by the proxy", classify.Write, `{"content":[],"isError":true,"_meta":{"agent-harness/outcome":"unknown"}}`, nil, nil, judge.Unknown},
		{"another _meta value stays rejected", classify.Write, `{"isError":true,"_meta":{"agent-harness/outcome":"done"}}`, nil, nil, judge.UpstreamRejected},
		{"the mark without isError executed", classify.Write, `{"content":[],"_meta":{"agent-harness/outcome":"unknown"}}`, nil, nil, judge.Executed},
		{"isError not a boolean executed", classify.Write, `{"isError":"true"}`, nil, nil, judge.Executed},
		{"array result unknown", classify.Write, `[]`, nil, nil, judge.Unknown},
		{"empty result unknown", classify.Write, ``, nil, nil, judge.Unknown},
		{"JSON-RPC error unknown", classify.Write, ``, &relay.RPCError{Code: -32602}, nil, judge.Unknown},
		{"no answer unknown", classify.Write, ``, nil, relay.ErrNoAnswer, judge.Unknown},
		{"upstream gone unknown", classify.Write, ``, nil, relay.ErrUpstreamUnavailable, judge.Unknown},
		{"other error unknown", classify.Write, ``, nil, errors.New("broken pipe"), judge.Unknown},
		{"unlisted tool", classify.Unknown, `{"content":[]}`, nil, nil, judge.UnknownTool},
		{"resultType complete executed", classify.Write, `{"content":[],"resultType":"complete"}`, nil, nil, judge.Executed},
		{"resultType input_required incomplete", classify.Write, `{"resultType":"input_required","inputRequests":{"r1":{"method":"elicitation/create","params":{}}},"requestState":"s1"}`, nil, nil, judge.Incomplete},
		{"resultType input_required with isError incomplete", classify.Write, `{"isError":true,"resultType":"input_required"}`, nil, nil, judge.Incomplete},
		{"resultType other unknown", classify.Write, `{"resultType":"pending"}`, nil, nil, judge.Unknown},
		{"resultType null executed", classify.Write, `{"resultType":null}`, nil, nil, judge.Executed},
		{"resultType complete with isError rejected", classify.Write, `{"isError":true,"resultType":"complete"}`, nil, nil, judge.UpstreamRejected},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			resp := relay.Response{Error: tt.rpc}
			if tt.result != "" {
				resp.Result = json.RawMessage(tt.result)
			}
			if got, _ := outcomeOf(tt.class, resp, tt.err); got != tt.want {
				t.Errorf("outcome %q, want %q", got, tt.want)
			}
		})
	}
}

// TestOutcomeDetailIncomplete: a result that is not complete says why.
func TestOutcomeDetailIncomplete(t *testing.T) {
	long := "a" + strings.Repeat("é", 40) // 81 bytes; byte 64 is inside an é
	tests := []struct {
		name, result, want string
		outcome            judge.Outcome
	}{
		{"input_required", `{"resultType":"input_required"}`,
			"the upstream asked for more input (resultType input_required); the call did not complete", judge.Incomplete},
		{"another string", `{"resultType":"pending"}`,
			"the upstream's result is not complete (resultType pending); the call did not complete", judge.Unknown},
		{"not a string", `{"resultType":7}`,
			"the upstream's result is not complete (resultType 7); the call did not complete", judge.Unknown},
		{"long kind cut on a rune boundary", `{"resultType":"` + long + `"}`,
			"the upstream's result is not complete (resultType a" + strings.Repeat("é", 31) + "…); the call did not complete", judge.Unknown},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, detail := outcomeOf(classify.Write, relay.Response{Result: json.RawMessage(tt.result)}, nil)
			if o != tt.outcome || detail != tt.want {
				t.Errorf("outcome %q, %q; want %s, %q", o, detail, tt.outcome, tt.want)
			}
		})
	}
}

// TestOutcomeOfAllocatesNothing: reading a complete result, with or
// without resultType, allocates nothing (it runs on every forwarded call).
func TestOutcomeOfAllocatesNothing(t *testing.T) {
	for _, r := range []string{okResult, `{"content":[],"resultType":"complete"}`, `{"isError":true,"resultType":""}`} {
		resp := relay.Response{Result: json.RawMessage(r)}
		if n := testing.AllocsPerRun(100, func() { outcomeOf(classify.Write, resp, nil) }); n != 0 {
			t.Errorf("%s: %v allocations per call, want 0", r, n)
		}
	}
}
