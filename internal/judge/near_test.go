package judge

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// TestNearDuplicateDates (SPEC §17.8, behaviour §4.6): F1 times out a
// booking that executed; the agent re-sends it with the date in another
// notation and it executes again. That is a possible duplicate
// (NOT_TESTED), never PASS 80; another day is another booking; the dates
// plugin's Same (here a pair checker answering Same) still makes it FAIL.
func TestNearDuplicateDates(t *testing.T) {
	resend := func(first, again string) func(s *sess) {
		return func(s *sess) {
			s.f1(s.write("create_booking", `{"room":"12","guest":"Ada Lovelace","date":`+first+`,"idempotency_key":"k-1"}`))
			s.ok(s.write("create_booking", `{"room":"12","guest":"Ada Lovelace","date":`+again+`,"idempotency_key":"k-2"}`))
		}
	}
	possible := want{verdict: report.VerdictNotTested, total: -1, reason: "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS",
		observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification},
		check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
			o := r.Observations[1]
			if want := "the arguments of create_booking differ only by date notation (docs/behaviour.md §4.6)"; !strings.Contains(o.Message, want) {
				t.Errorf("observation %q, want it to say %q", o.Message, want)
			}
			if len(r.Operations) != 2 || r.Operations[0].Executions != 1 || r.Operations[1].Executions != 1 {
				t.Errorf("operations %+v, want two executed once each", r.Operations)
			}
		}}
	other := want{verdict: report.VerdictPass, total: 80,
		observations: []string{obsUnverifiedAfterTimout, obsOtherWriteAfterUncert}, patches: []string{PatchVerification}}
	f1 := Config{Scenario: "F1"}
	runRules(t, []rule{
		{name: "17.8/dots", cfg: f1, build: resend(`"2026-11-03"`, `"03.11.2026"`), want: possible},
		{name: "17.8/us-slashes", cfg: f1, build: resend(`"2026-11-03"`, `"11/03/2026"`), want: possible},
		{name: "17.8/european-slashes", cfg: f1, build: resend(`"2026-11-03"`, `"03/11/2026"`), want: possible},
		{name: "17.8/month-name", cfg: f1, build: resend(`"2026-11-03"`, `"November 3, 2026"`), want: possible},
		{name: "17.8/same-instant-other-zone", cfg: f1, build: resend(`"2026-11-03T10:00:00Z"`, `"2026-11-03T11:00:00+01:00"`), want: possible},
		{name: "17.8/datetime-vs-date-same-day", cfg: f1, build: resend(`"2026-11-03T15:00:00"`, `"3 Nov 2026"`), want: possible},
		{name: "17.8/other-day", cfg: f1, build: resend(`"2026-11-03"`, `"04.11.2026"`), want: other},
		{name: "17.8/other-instant", cfg: f1, build: resend(`"2026-11-03T10:00:00Z"`, `"2026-11-03T10:00:00+01:00"`), want: other},
		{name: "17.8/plugin-same-still-fails", cfg: Config{Scenario: "F1", PairCheckers: []PairChecker{pairPlugin{Same}}},
			build: resend(`"2026-11-03"`, `"03.11.2026"`),
			want:  want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite}}},
	})
}
