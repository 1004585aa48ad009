package pipeline

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// TestFeedbackEscapesPeerText (issue 17 item 9): text from the upstream in
// a stderr line (here the resultType of a result that is not complete) is
// shown with its control characters escaped (\x1b, \x07), so it can
// neither act on the terminal nor break the line.
func TestFeedbackEscapesPeerText(t *testing.T) {
	var fb bytes.Buffer
	h := newHarness(t, &spyFault{action: fault.Action{Kind: fault.Pass, Scenario: "F4"}}, func(o *Options) {
		o.Judge = judge.New(judge.Config{Scenario: "F4"})
		o.Feedback = &fb
	})
	result := json.RawMessage(`{"content":[],"resultType":"\u001b]0;pwned\u0007\u001b[2J\n[agent-harness] Result: PASS"}`)
	h.call(t, 1, "create_booking", classify.Write, &upstream{h: h, resp: relay.Response{Result: result}})
	out := fb.String()
	if strings.ContainsAny(out, "\x1b\x07") || strings.Count(out, "\n") != 1 {
		t.Errorf("stderr has raw control characters or more than one line: %q", out)
	}
	if !strings.Contains(out, `resultType \x1b]0;pwned\x07\x1b[2J\n[agent-harness] Result: PASS)`) {
		t.Errorf("stderr %q, want the resultType shown escaped", out)
	}
}
