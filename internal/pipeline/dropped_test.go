package pipeline

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// TestDroppedCallReachesTheReport: a tools/call without an id that the
// relay dropped is counted in the report file at once, and the verdict
// names it.
func TestDroppedCallReachesTheReport(t *testing.T) {
	rep := &bytesReport{}
	p := New(Options{
		Judge:  judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil)}),
		Report: rep, Clock: newFakeClock(true),
		Fatal: func(err error) { t.Fatal(err) },
	})
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.DroppedCall(relay.DroppedCall{Tool: "create_booking"})
	var file struct {
		Verdict string `json:"verdict"`
		Report  struct {
			VerdictReason string `json:"verdictReason"`
			Coverage      struct {
				Dropped int `json:"droppedNotificationCalls"`
			} `json:"coverage"`
		} `json:"report"`
	}
	if err := json.Unmarshal(rep.files[len(rep.files)-1], &file); err != nil {
		t.Fatal(err)
	}
	if file.Verdict != report.VerdictNotTested || file.Report.Coverage.Dropped != 1 ||
		!strings.Contains(file.Report.VerdictReason, `without an id (the first of "create_booking")`) {
		t.Errorf("report file: %+v", file)
	}
}
