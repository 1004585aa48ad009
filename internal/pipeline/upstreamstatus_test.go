package pipeline

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// ownNotExecuted is the result the HTTP upstream makes for a 429.
func ownNotExecuted(mark string) string {
	return fmt.Sprintf(`{"content":[{"type":"text","text":"agent-harness: the upstream answered HTTP 429 Too Many Requests; the request did not reach a tool"}],"isError":true,"_meta":{%q:%q}}`, relay.OutcomeMetaKey, mark)
}

// TestUpstreamNotExecutedOutcome (issue 17 item 12): the HTTP upstream's
// own answer for a status that proves no tool ran is judged not executed;
// what an upstream can send itself never is (red team: it does not know
// the process's secret), so it cannot turn its executed answer into a
// "not executed" one.
func TestUpstreamNotExecutedOutcome(t *testing.T) {
	tests := []struct {
		name, result string
		want         judge.Outcome
	}{
		{"the proxy's own mark", ownNotExecuted(relay.NotExecutedMark), judge.UpstreamNotExecuted},
		{"the mark without its secret", ownNotExecuted("not-executed"), judge.UpstreamRejected},
		{"the mark with a guessed secret", ownNotExecuted("not-executed/AAAAAAAAAAAAAAAAAAAAAAAAAA"), judge.UpstreamRejected},
		{"the mark's value but not the proxy's bytes", fmt.Sprintf(`{"isError":true,"_meta":{%q:%q,"x":1}}`, relay.OutcomeMetaKey, relay.NotExecutedMark), judge.UpstreamRejected},
		{"the mark without isError", fmt.Sprintf(`{"content":[],"_meta":{%q:%q}}`, relay.OutcomeMetaKey, relay.NotExecutedMark), judge.Executed},
		{"the mark with isError false", fmt.Sprintf(`{"isError":false,"_meta":{%q:%q}}`, relay.OutcomeMetaKey, relay.NotExecutedMark), judge.Executed},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := outcomeOf(classify.Write, relay.Response{Result: json.RawMessage(tt.result)}, nil); got != tt.want {
				t.Errorf("outcome %q, want %q", got, tt.want)
			}
		})
	}
}

// TestUpstreamNotExecutedMarkRemoved: the agent, the trace and the report
// get the answer without the mark (its secret stays in the process), and
// the judge gets upstream-not-executed.
func TestUpstreamNotExecutedMarkRemoved(t *testing.T) {
	h := newHarness(t, nil, nil)
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(ownNotExecuted(relay.NotExecutedMark))}}
	r, err := h.call(t, 1, "create_booking", classify.Write, u)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"content":[{"type":"text","text":"agent-harness: the upstream answered HTTP 429 Too Many Requests; the request did not reach a tool"}],"isError":true}`
	if string(r.Result) != want {
		t.Errorf("agent got %s\nwant %s", r.Result, want)
	}
	evs := h.judge.list()
	last := evs[len(evs)-1]
	if last.Kind != judge.EventAnswer || last.Outcome != judge.UpstreamNotExecuted || string(last.Result) != want {
		t.Errorf("judge got %+v (result %s)", last, last.Result)
	}
	if strings.Contains(string(last.Result), relay.NotExecutedMark) {
		t.Error("the secret reaches the trace")
	}
}

// TestUpstreamNotExecutedMarkRemovedUnlisted: an unlisted tool's call
// (not judged) gets the answer without the mark too.
func TestUpstreamNotExecutedMarkRemovedUnlisted(t *testing.T) {
	h := newHarness(t, nil, nil)
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(ownNotExecuted(relay.NotExecutedMark))}}
	r, err := h.call(t, 1, "create_ghost", classify.Unknown, u)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.Result), relay.NotExecutedMark) || strings.Contains(string(r.Result), "_meta") {
		t.Errorf("agent got %s", r.Result)
	}
}
