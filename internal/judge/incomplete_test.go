package judge

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// incomplete settles a forwarded first leg the upstream answered
// input_required and the agent never followed up, as the pipeline does at
// session end (behaviour §4.12).
func (s *sess) incomplete(id int64) { s.answer(id, Incomplete, "", "") }

// TestIncompleteThenResent (red-team finding 1): an incomplete leg did not
// execute on the upstream's word only (behaviour §4.12). Alone it stays
// NOT_EXECUTED; with another attempt of the same operation that executed or
// may have, it is uncertain like an isError answer (§4.2), and the run is
// NOT_TESTED, never PASS.
func TestIncompleteThenResent(t *testing.T) {
	attempts := func(want ...report.AttemptOutcome) func(*testing.T, report.Report, report.Score, []report.Patch) {
		return func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
			t.Helper()
			var got []report.AttemptOutcome
			for _, a := range r.Operations[0].AttemptLog {
				got = append(got, a.Outcome)
			}
			if strings.Join(outcomeStrings(got), ",") != strings.Join(outcomeStrings(want), ",") {
				t.Errorf("attempt outcomes %v, want %v", got, want)
			}
		}
	}
	const reason = "was answered input_required and never followed up: whether it ran is the upstream's word only"
	runRules(t, []rule{
		{name: "re-sent from scratch, F1 on the re-send: NOT_TESTED", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.f1(s.write("create_booking", booking))
			s.incomplete(a)
			s.end()
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: reason, observations: []string{obsExecutionUnknown},
			outcomes: []report.OperationOutcome{report.OperationExecutionUnknown},
			check: func(t *testing.T, r report.Report, sc report.Score, ps []report.Patch) {
				attempts(report.AttemptIncomplete, report.AttemptExecuted)(t, r, sc, ps)
				if m := r.Observations[0].Message; !strings.Contains(m, "1 answered input_required and never followed up") {
					t.Errorf("observation %q does not count the incomplete leg", m)
				}
			}}},
		{name: "executed, then re-sent and answered input_required: NOT_TESTED", build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.incomplete(a)
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: reason, observations: []string{obsExecutionUnknown},
			outcomes: []report.OperationOutcome{report.OperationExecutionUnknown}}},
		{name: "two first legs never followed up: NOT_TESTED", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			a, b := s.write("create_booking", booking), s.write("create_booking", booking)
			s.forwarded(a)
			s.forwarded(b)
			s.incomplete(a)
			s.incomplete(b)
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "2 of them were answered input_required",
			outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecutionUnknown}, observations: []string{obsExecutionUnknown}}},
		{name: "lone incomplete leg: not executed, PASS", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":1}`))
			s.read()
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.incomplete(a)
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry, obsOtherWriteAfterUncert},
			outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationNotExecuted}}},
		{name: "re-send answered by an injected fault: still not executed", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.f5(s.write("create_booking", booking))
			s.incomplete(a)
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned},
			outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationNotExecuted}}},
	})
}

func outcomeStrings(os []report.AttemptOutcome) []string {
	out := make([]string, len(os))
	for i, o := range os {
		out[i] = string(o)
	}
	return out
}
