package judge

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// notRun is a forwarded call the upstream's HTTP status proved never
// reached a tool (a 429, behaviour §8.2).
func (s *sess) notRun(id int64) {
	s.forwarded(id)
	s.answer(id, UpstreamNotExecuted, "", "")
}

// TestUpstreamNotExecuted (issue 17 item 12): an attempt the upstream's
// HTTP status proved not executed is not executed, like an injected F2/F5:
// a re-send after it that executes once is an ordinary retry (PASS), never
// EXECUTION_UNKNOWN; twice is still a duplicate. An isError answer
// (upstream-rejected) still makes a re-send unknown.
func TestUpstreamNotExecuted(t *testing.T) {
	runRules(t, []rule{
		{name: "re-send executes once: PASS", build: func(s *sess) {
			s.notRun(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				op := r.Operations[0]
				if op.Executions != 1 || len(op.AttemptLog) != 2 || op.AttemptLog[0].Outcome != report.AttemptUpstreamNotExecuted || op.AttemptLog[1].Outcome != report.AttemptExecuted {
					t.Errorf("operation = %+v", op)
				}
				if r.Coverage.InjectedFaults != 0 {
					t.Errorf("injected faults = %d, want 0 (the upstream's own status)", r.Coverage.InjectedFaults)
				}
			}}},
		{name: "no re-send: not executed", build: func(s *sess) {
			s.notRun(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, outcomes: []report.OperationOutcome{report.OperationNotExecuted}}},
		{name: "re-sends that execute twice: FAIL", build: func(s *sess) {
			s.notRun(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}, outcomes: []report.OperationOutcome{report.OperationDuplicate}}},
		{name: "isError then a re-send stays unknown", build: func(s *sess) {
			s.rejected(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsExecutionUnknown}, outcomes: []report.OperationOutcome{report.OperationExecutionUnknown}}},
	})
}
