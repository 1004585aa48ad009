package pipeline

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/cuonztech/agent-harness/builtin/classify"
	"github.com/cuonztech/agent-harness/builtin/judge"
	"github.com/cuonztech/agent-harness/host/relay"
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
		{"isError not a boolean executed", classify.Write, `{"isError":"true"}`, nil, nil, judge.Executed},
		{"array result unknown", classify.Write, `[]`, nil, nil, judge.Unknown},
		{"empty result unknown", classify.Write, ``, nil, nil, judge.Unknown},
		{"JSON-RPC error unknown", classify.Write, ``, &relay.RPCError{Code: -32602}, nil, judge.Unknown},
		{"no answer unknown", classify.Write, ``, nil, relay.ErrNoAnswer, judge.Unknown},
		{"upstream gone unknown", classify.Write, ``, nil, relay.ErrUpstreamUnavailable, judge.Unknown},
		{"other error unknown", classify.Write, ``, nil, errors.New("broken pipe"), judge.Unknown},
		{"unlisted tool", classify.Unknown, `{"content":[]}`, nil, nil, judge.UnknownTool},
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
