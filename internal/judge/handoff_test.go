package judge

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// handOff: call id is forwarded and the agent is handed F1's timeout
// while its outcome is not known (a task-creating write: the pipeline
// hears the task's final status later).
func (s *sess) handOff(id int64) {
	s.forwarded(id)
	s.emit(Event{Kind: EventDelivered, Call: id, Fault: "timeout"})
}

// taskGhost: the hidden task of a handed-off call completed.
func (s *sess) taskGhost(id int64) { s.answer(id, Executed, "F1", "timeout") }

// dupIs checks the first violation's duplicate labels.
func dupIs(parallel, afterTimeout, verified bool, fault string) func(*testing.T, report.Report, report.Score, []report.Patch) {
	return func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
		t.Helper()
		d := r.Violations[0].Duplicate
		if d.Parallel != parallel || d.AfterTimeout != afterTimeout || d.VerifiedBefore != verified || d.AfterInjectedFault != fault || d.Executions != 2 {
			t.Errorf("duplicate %+v, want parallel %v, afterTimeout %v, verifiedBefore %v, afterInjectedFault %q, 2 executions",
				*d, parallel, afterTimeout, verified, fault)
		}
	}
}

// TestHandoffCountsFromDelivery (issue 21 item 1, behaviour §4.13): F1 on a
// task-creating write hands the agent the timeout before the judge knows
// the task ran. A re-send after that handoff is a re-send after a timeout,
// never parallel, whether it is answered before the hidden task's final
// status or after it; one sent before the handoff overlapped the write.
func TestHandoffCountsFromDelivery(t *testing.T) {
	ghostDup := want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
		reason: "again after a timeout, although the first attempt had executed"}
	withCheck := func(w want, c func(*testing.T, report.Report, report.Score, []report.Patch)) want {
		w.check = c
		return w
	}
	runRules(t, []rule{
		{name: "re-send answered before the task's final status", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.handOff(a)
			s.wait(5)
			s.ok(s.write("create_booking", booking))
			s.wait(5)
			s.taskGhost(a)
			s.end()
		}, want: withCheck(ghostDup, dupIs(false, true, false, "timeout"))},
		{name: "re-send answered after the task's final status", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.handOff(a)
			s.wait(5)
			b := s.write("create_booking", booking)
			s.taskGhost(a)
			s.ok(b)
			s.end()
		}, want: withCheck(ghostDup, dupIs(false, true, false, "timeout"))},
		{name: "a read between the handoff and the re-send verified", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.handOff(a)
			s.read()
			s.ok(s.write("create_booking", booking))
			s.taskGhost(a)
			s.end()
		}, want: withCheck(want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite}},
			dupIs(false, true, true, "timeout"))},
		{name: "sent before the handoff: parallel, not after the timeout", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			b := s.write("create_booking", booking)
			s.handOff(a)
			s.ok(b)
			s.taskGhost(a)
			s.end()
		}, want: withCheck(want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			reason: "attempts sent in parallel"},
			dupIs(true, false, false, ""))},
		// As without a handoff: an isError answer may have written, and F1
		// (not applied, so re-armed) never fired.
		{name: "the task failed: no ghost write, the verdict as before", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.handOff(a)
			s.ok(s.write("create_booking", booking))
			s.answer(a, UpstreamRejected, "", "")
			s.end()
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsExecutionUnknown},
			outcomes: []report.OperationOutcome{report.OperationExecutionUnknown}}},
	})
}
