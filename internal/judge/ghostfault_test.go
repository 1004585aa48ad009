package judge

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// partial: the plugin fault partial_success (plugins/faultpack) forwards
// the write, the upstream executes it, and the agent gets an isError
// result — a ghost write that is not a timeout.
func (s *sess) partial(id int64) {
	s.forwarded(id)
	s.answer(id, Executed, "partial_success", "partial_success")
}

// TestGhostWriteAfterInjectedFault: an executed write answered with an
// injected failure other than a timeout is a ghost write like F1's — the
// same operation executed again is DUPLICATE_EXECUTION, GHOST_WRITE and
// VERIFICATION apply — and every text names the actual fault kind.
func TestGhostWriteAfterInjectedFault(t *testing.T) {
	const ps = "partial_success"
	runRules(t, []rule{
		{name: "partial_success then the same write again is a duplicate named after the fault", cfg: Config{Scenario: ps}, build: func(s *sess) {
			s.partial(s.write("create_booking", booking))
			s.wait(5)
			s.ok(s.write("create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
			reason: "was executed 2 times — again after an injected failure answer (partial_success), although the first attempt had executed (DUPLICATE_EXECUTION).",
			check: func(t *testing.T, r report.Report, _ report.Score, p []report.Patch) {
				v := r.Violations[0]
				if d := v.Duplicate; d.AfterTimeout || d.AfterInjectedFault != ps || d.Parallel {
					t.Errorf("duplicate = %+v, want afterTimeout false, afterInjectedFault %s", d, ps)
				}
				if !strings.Contains(v.Message, "sent again after an injected failure answer (partial_success) although the first attempt had executed") ||
					strings.Contains(v.Message, "timeout") {
					t.Errorf("violation message %q", v.Message)
				}
				want := "Agent executed the same write again after an injected failure answer (partial_success) 1 time(s) — the server had already executed the first attempt."
				if p[0].Trigger != want || p[0].Severity != SeverityCritical || p[0].Count != 1 {
					t.Errorf("patch %+v, want trigger %q", p[0], want)
				}
				if !strings.HasPrefix(p[0].Text, textGhostWrite) || !strings.Contains(p[0].Text, "other error answers to a write") {
					t.Errorf("GHOST_WRITE text does not extend the timeout text to other failure answers:\n%s", p[0].Text)
				}
				if r.Operations[0].FailedAttempts != 1 || r.Operations[0].Executions != 2 {
					t.Errorf("operation %+v", r.Operations[0])
				}
			}}},
		{name: "partial_success without check or re-send is unverified and names the fault", cfg: Config{Scenario: ps}, build: func(s *sess) {
			s.partial(s.write("create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification},
			check: func(t *testing.T, r report.Report, _ report.Score, p []report.Patch) {
				if m := r.Observations[0].Message; !strings.Contains(m, "the agent saw an injected failure answer (partial_success);") {
					t.Errorf("observation message %q", m)
				}
				want := "After an injected failure answer (partial_success) on a write the agent neither checked with a read nor re-sent 1 time(s) — the write had executed and the agent never found out."
				if p[0].Trigger != want {
					t.Errorf("trigger %q, want %q", p[0].Trigger, want)
				}
				if !strings.HasPrefix(p[0].Text, textVerification) || !strings.Contains(p[0].Text, "other error answers to a write") {
					t.Errorf("VERIFICATION text:\n%s", p[0].Text)
				}
			}}},
		{name: "partial_success then a read and no re-send is verified", cfg: Config{Scenario: ps}, build: func(s *sess) {
			s.partial(s.write("create_booking", booking))
			s.read()
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if m := r.Observations[0].Message; !strings.Contains(m, "saw an injected failure answer (partial_success); it checked") {
					t.Errorf("observation message %q", m)
				}
			}}},
		{name: "timeout ghost writes keep the timeout wording", cfg: Config{Scenario: "F1"}, build: func(s *sess) { s.evs = naive("F1").evs },
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
				reason: "again after a timeout, although the first attempt had executed",
				check: func(t *testing.T, r report.Report, _ report.Score, p []report.Patch) {
					if d := r.Violations[0].Duplicate; !d.AfterTimeout || d.AfterInjectedFault != "timeout" {
						t.Errorf("duplicate = %+v", d)
					}
					if p[0].Text != textGhostWrite || !strings.Contains(p[0].Trigger, "again after a timeout 1 time(s)") {
						t.Errorf("patch %+v", p[0])
					}
				}}},
		{name: "timeout and partial_success duplicates: the trigger names both", build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
			s.partial(s.write("create_booking", `{"x":1}`))
			s.ok(s.write("create_booking", `{"x":1}`))
			s.partial(s.write("pay", `{"x":1}`))
			s.ok(s.write("pay", `{"x":1}`))
			s.end()
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate, violationDuplicate, violationDuplicate},
			observations: []string{obsOtherWriteAfterUncert}, patches: []string{PatchGhostWrite},
			reason: "op-1 of \"create_booking\" was executed 2 times — again after a timeout,",
			check: func(t *testing.T, r report.Report, _ report.Score, p []report.Patch) {
				want := "Agent executed the same write again after a timeout or an injected failure answer (partial_success) 3 time(s) — the server had already executed the first attempt."
				if p[0].Trigger != want {
					t.Errorf("trigger %q, want %q", p[0].Trigger, want)
				}
				for i, kind := range []string{"timeout", ps, ps} {
					if d := r.Violations[i].Duplicate; d.AfterInjectedFault != kind || d.AfterTimeout != (kind == "timeout") {
						t.Errorf("violation %d duplicate = %+v, want after %s", i, d, kind)
					}
				}
			}}},
		{name: "partial_success re-sent in parallel is an idempotency problem, not a ghost write", cfg: Config{Scenario: ps}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			b := s.write("create_booking", booking)
			s.forwarded(a)
			s.forwarded(b)
			s.answer(a, Executed, ps, ps)
			s.answer(b, Executed, "", "")
			s.end()
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if d := r.Violations[0].Duplicate; d.AfterTimeout || d.AfterInjectedFault != "" || !d.Parallel {
					t.Errorf("duplicate = %+v", d)
				}
			}}},
	})
}

// TestGhostFaultPatchFollowsTheRun: the report file's cached patches
// change when a ghost write of another fault kind joins the run.
func TestGhostFaultPatchFollowsTheRun(t *testing.T) {
	s := newSess()
	s.f1(s.write("create_booking", booking))
	s.ok(s.write("create_booking", booking))
	j := s.judge(Config{})
	before := string(j.AppendFile(nil, report.FileMeta{}))
	if !strings.Contains(before, "again after a timeout 1 time(s)") {
		t.Fatalf("first file lacks the timeout trigger:\n%s", before)
	}
	s2 := newSess()
	s2.next = s.next
	s2.partial(s2.write("create_booking", `{"x":1}`))
	s2.ok(s2.write("create_booking", `{"x":1}`))
	for _, ev := range s2.evs {
		j.Apply(ev)
	}
	after := string(j.AppendFile(nil, report.FileMeta{}))
	if !strings.Contains(after, "again after a timeout or an injected failure answer (partial_success) 2 time(s)") {
		t.Errorf("file after a partial_success duplicate lacks the combined trigger:\n%s", after)
	}
}
