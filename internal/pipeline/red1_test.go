package pipeline

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/judge"
)

// TestRed1FeedbackUpstreamNotExecuted: a scenario that passes a write
// through (F4, a plugin fault that passes) on a call the upstream answered
// 429 prints, in the --feedback line, "whether the upstream executed it is
// unknown (the upstream's HTTP status proves the call did not reach a
// tool)" — unknown and proven-not-executed in one sentence, while the
// judge counts it upstream-not-executed. Cosmetic.
func TestRed1FeedbackUpstreamNotExecuted(t *testing.T) {
	ev := judge.Event{Kind: judge.EventAnswer, Scenario: "F4", Call: 3, Outcome: judge.UpstreamNotExecuted,
		Detail: "the upstream's HTTP status proves the call did not reach a tool"}
	line := firedLine(ev, "create_booking", 1)
	t.Log(line)
	if strings.Contains(line, "unknown") {
		t.Errorf("the feedback line calls a proven not-executed attempt unknown: %s", line)
	}
}
