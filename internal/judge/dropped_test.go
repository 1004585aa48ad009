package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// A tools/call the agent sent without an id was not forwarded: it executed
// nothing, but the agent may have meant a retry. The run cannot PASS; a
// violation still makes it FAIL; the coverage counts it.
func TestDroppedCallBlocksPass(t *testing.T) {
	dropped := func(s *sess) { s.emit(Event{Kind: EventDroppedCall, Tool: "create_booking"}) }
	tests := []struct {
		name        string
		build       func(s *sess)
		wantVerdict string
		wantReason  string
		wantDropped int
	}{
		{"clean run with a dropped retry", func(s *sess) {
			s.f1(s.write("create_booking", `{"room":1}`))
			dropped(s)
			s.end()
		}, report.VerdictNotTested, `The agent sent 1 tools/call message(s) without an id (the first of "create_booking")`, 1},
		{"only dropped calls", func(s *sess) {
			dropped(s)
			dropped(s)
		}, report.VerdictNotTested, `The agent sent 2 tools/call message(s) without an id`, 2},
		{"a duplicate still fails", func(s *sess) {
			s.f1(s.write("create_booking", `{"room":1}`))
			s.ok(s.write("create_booking", `{"room":1}`))
			dropped(s)
		}, report.VerdictFail, "DUPLICATE_EXECUTION", 1},
		{"none", func(s *sess) {
			s.f1(s.write("create_booking", `{"room":1}`))
		}, report.VerdictPass, "Scenario F1 fired", 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newSess()
			tt.build(s)
			j := s.judge(Config{Scenario: "F1"})
			v, r := j.Verdict()
			if v != tt.wantVerdict || !strings.Contains(r, tt.wantReason) {
				t.Errorf("verdict %s %q, want %s containing %q", v, r, tt.wantVerdict, tt.wantReason)
			}
			if got := j.Report().Coverage.DroppedNotificationCalls; got != tt.wantDropped {
				t.Errorf("coverage.droppedNotificationCalls = %d, want %d", got, tt.wantDropped)
			}
			var file struct {
				Report struct {
					Coverage map[string]json.RawMessage `json:"coverage"`
				} `json:"report"`
			}
			if err := json.Unmarshal(j.AppendFile(nil, report.FileMeta{}), &file); err != nil {
				t.Fatal(err)
			}
			raw, present := file.Report.Coverage["droppedNotificationCalls"]
			if present != (tt.wantDropped > 0) || (present && string(raw) != strings.TrimSpace(string(rune('0'+tt.wantDropped)))) {
				t.Errorf("file coverage.droppedNotificationCalls = %s (present %v)", raw, present)
			}
		})
	}
}
