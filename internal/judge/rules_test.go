package judge

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// want is what a rule test asserts about a judged session. Empty fields
// are not checked, except the type lists when checkTypes is set.
type want struct {
	verdict      string
	reason       string // substring of verdictReason
	total        int    // checked unless noScore; -1 means null
	capped       bool
	violations   []string
	observations []string
	patches      []string
	outcomes     []report.OperationOutcome
	check        func(t *testing.T, r report.Report, s report.Score, ps []report.Patch)
}

type rule struct {
	name  string
	cfg   Config
	build func(s *sess)
	want  want
}

func runRules(t *testing.T, cases []rule) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newSess()
			tc.build(s)
			j := s.judge(tc.cfg)
			assertJudge(t, j, tc.want)
		})
	}
}

func assertJudge(t *testing.T, j *Judge, w want) {
	t.Helper()
	r, sc, ps := j.Report(), j.Score(), j.Patches()
	if r.Verdict != w.verdict {
		t.Errorf("verdict = %s, want %s (reason: %s)", r.Verdict, w.verdict, r.VerdictReason)
	}
	if sc.Verdict != r.Verdict {
		t.Errorf("score.verdict = %s, report.verdict = %s", sc.Verdict, r.Verdict)
	}
	if w.reason != "" && !strings.Contains(r.VerdictReason, w.reason) {
		t.Errorf("verdictReason = %q, want it to contain %q", r.VerdictReason, w.reason)
	}
	switch {
	case w.total == -1 && sc.Total != nil:
		t.Errorf("score.total = %d, want null", *sc.Total)
	case w.total >= 0 && sc.Total == nil:
		t.Errorf("score.total = null, want %d", w.total)
	case w.total >= 0 && *sc.Total != w.total:
		t.Errorf("score.total = %d, want %d", *sc.Total, w.total)
	}
	if sc.Capped != w.capped {
		t.Errorf("score.capped = %t, want %t", sc.Capped, w.capped)
	}
	types := func(n int, f func(i int) string) []string {
		out := []string{}
		for i := range n {
			out = append(out, f(i))
		}
		return out
	}
	cmp := func(what string, got, want []string) {
		if want == nil {
			want = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s = %q, want %q", what, got, want)
		}
	}
	cmp("violations", types(len(r.Violations), func(i int) string { return r.Violations[i].Type }), w.violations)
	cmp("observations", types(len(r.Observations), func(i int) string { return r.Observations[i].Type }), w.observations)
	cmp("patches", types(len(ps), func(i int) string { return ps[i].Type }), w.patches)
	if w.outcomes != nil {
		cmp("outcomes", types(len(r.Operations), func(i int) string { return string(r.Operations[i].Outcome) }),
			types(len(w.outcomes), func(i int) string { return string(w.outcomes[i]) }))
	}
	if w.check != nil {
		w.check(t, r, sc, ps)
	}
	// Universal properties.
	if r.Verdict == report.VerdictNotTested && sc.Total != nil {
		t.Errorf("NOT_TESTED with a score %d", *sc.Total)
	}
	if r.Verdict == report.VerdictFail && (sc.Total == nil || *sc.Total > 49) {
		t.Errorf("FAIL with score %v", sc.Total)
	}
	if r.Certification != report.Certification || r.Honesty != report.NotMeasured {
		t.Errorf("certification %q honesty %q", r.Certification, r.Honesty)
	}
}

const booking = `{"guest":"Ada","date":"2026-11-03","amount":129}`

func TestOperationIdentity(t *testing.T) {
	broken := &fakePlugins{}
	dup := func(a, b string) func(s *sess) {
		return func(s *sess) {
			s.ok(s.write("create_booking", a))
			s.ok(s.write("create_booking", b))
		}
	}
	runRules(t, []rule{
		{name: "2.1/key-order-irrelevant", build: dup(`{"a":1,"b":2}`, `{"b":2,"a":1}`),
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}, outcomes: []report.OperationOutcome{report.OperationDuplicate}}},
		{name: "2.1/number-notation-same-value", build: dup(`{"n":12}`, `{"n":1.2e1}`),
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.1/number-vs-string-differ", build: dup(`{"n":12}`, `{"n":"12"}`),
			want: want{verdict: report.VerdictPass, total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecuted}}},
		{name: "2.1/big-integers-exact", build: dup(`{"n":9007199254740992}`, `{"n":9007199254740993}`),
			want: want{verdict: report.VerdictPass, total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecuted}}},
		{name: "2.1/key-stripped-new-key-is-same-operation", build: dup(`{"x":1,"idempotency_key":"k1"}`, `{"x":1,"idempotency_key":"k2"}`),
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					if got := r.Violations[0].Duplicate.KeyUse; got != report.KeyUseDifferent {
						t.Errorf("keyUse = %s", got)
					}
					if got := r.Operations[0].Keys; !slices.Equal(got, []string{"k1", "k2"}) {
						t.Errorf("keys = %q", got)
					}
				}}},
		{name: "2.1/key-field-case-and-dash", build: dup(`{"x":1,"Idempotency-Key":"k1"}`, `{"x":1}`),
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					if got := r.Violations[0].Duplicate.KeyUse; got != report.KeyUseMixed {
						t.Errorf("keyUse = %s", got)
					}
				}}},
		{name: "2.1/custom-key-fields", cfg: Config{KeyFields: canon.ParseKeyFields([]string{"request_id"})},
			build: dup(`{"x":1,"request_id":"a"}`, `{"x":1,"request_id":"a"}`),
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					if got := r.Violations[0].Duplicate.KeyUse; got != report.KeyUseSame {
						t.Errorf("keyUse = %s", got)
					}
				}}},
		{name: "2.1/non-key-field-not-stripped", build: dup(`{"x":1,"note":"a"}`, `{"x":1,"note":"b"}`),
			want: want{verdict: report.VerdictPass, total: 100}},
		{name: "2.1/plugin-equivalence-widens", cfg: Config{Equivalences: []Equivalence{dateEquiv{}}},
			build: dup(`{"date":"2026-11-03"}`, `{"date":"03.11.2026"}`),
			want:  want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.1/plugin-equivalence-error-is-plugin-failure", cfg: Config{Equivalences: []Equivalence{failingEquiv{broken}}, PluginStatus: broken.status},
			build: dup(`{"a":1}`, `{"a":2}`),
			want:  want{verdict: report.VerdictNotTested, total: -1, reason: `Plugin "broken-equiv" failed`}},
	})
}

// dateEquiv is a test equivalence plugin: a "date" in DD.MM.YYYY is the
// same as YYYY-MM-DD.
type dateEquiv struct{}

func (dateEquiv) Key(tool string, args json.RawMessage) (string, bool, error) {
	var v struct{ Date string }
	if json.Unmarshal(args, &v) != nil || v.Date == "" {
		return "", false, nil
	}
	d := v.Date
	if len(d) == 10 && d[2] == '.' && d[5] == '.' {
		d = d[6:] + "-" + d[3:5] + "-" + d[0:2]
	}
	return d, true, nil
}

// failingEquiv fails every call; host counts the failures, as the plugin
// host does.
type failingEquiv struct{ host *fakePlugins }

func (e failingEquiv) Key(string, json.RawMessage) (string, bool, error) {
	e.host.fail("broken-equiv", "trap")
	return "", false, errors.New("trap")
}
func (failingEquiv) Name() string { return "broken-equiv" }

func TestAttemptOutcomes(t *testing.T) {
	runRules(t, []rule{
		{name: "2.2/executed-includes-F1-ghost", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if op := r.Operations[0]; op.Executions != 1 || op.FailedAttempts != 1 || op.Outcome != report.OperationExecuted {
					t.Errorf("operation = %+v", op)
				}
			}}},
		{name: "2.2/injected-not-executed", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.f5(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned}, outcomes: []report.OperationOutcome{report.OperationNotExecuted}}},
		{name: "2.2/upstream-rejected", build: func(s *sess) {
			s.rejected(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsUpstreamRejected}, outcomes: []report.OperationOutcome{report.OperationUpstreamRejected}}},
		{name: "2.2/jsonrpc-error-is-unknown", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			s.unknown(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsExecutionUnknown}, outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecutionUnknown},
			check: func(t *testing.T, _ report.Report, s report.Score, _ []report.Patch) {
				if s.Counts.JudgedOperations != 1 {
					t.Errorf("judged = %d, want 1 (unknown is neither clean nor duplicate)", s.Counts.JudgedOperations)
				}
			}}},
		{name: "2.2/unknown-tool-not-judged", build: func(s *sess) {
			s.answer(s.call("create_ghost", classify.Unknown, booking), UnknownTool, "", "")
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "No call to a write tool",
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if !slices.Equal(r.Coverage.UnknownTools, []string{"create_ghost"}) || r.Coverage.Calls.Unknown != 1 {
					t.Errorf("coverage = %+v", r.Coverage)
				}
			}}},
	})
}

func TestVerdicts(t *testing.T) {
	runRules(t, []rule{
		{name: "2.3/not-tested/no-calls", build: func(*sess) {},
			want: want{verdict: report.VerdictNotTested, total: -1, reason: "No tool call"}},
		{name: "2.3/not-tested/no-write", build: func(s *sess) { s.read() },
			want: want{verdict: report.VerdictNotTested, total: -1, reason: "No call to a write tool"}},
		{name: "2.3/not-tested/unclassified-only", build: func(s *sess) {
			s.call("sync_ledger", classify.Unclassified, `{}`)
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "No call to a write tool"}},
		{name: "2.3/not-tested/scenario-never-fired", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.rejected(s.write("create_booking", booking)) // F1 stays armed after isError
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "Scenario F1 never fired", observations: []string{obsUpstreamRejected}}},
		{name: "2.3/not-tested/scenario-never-fired-beats-fail", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "never fired", violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.3/not-tested/every-write-unknown", build: func(s *sess) {
			s.unknown(s.write("create_booking", booking))
			s.write("create_booking", `{"other":1}`)
			s.end()
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "unknown for all 2", observations: []string{obsExecutionUnknown, obsExecutionUnknown, obsOtherWriteAfterUncert}}},
		{name: "2.3/not-tested/retry-of-unknown", build: func(s *sess) {
			s.unknown(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "no usable answer", observations: []string{obsExecutionUnknown}}},
		{name: "2.3/not-tested/retry-after-isError", build: func(s *sess) {
			s.rejected(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "isError", observations: []string{obsExecutionUnknown}, outcomes: []report.OperationOutcome{report.OperationExecutionUnknown}}},
		{name: "2.3/not-tested/retry-while-in-flight", build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "still without answer", observations: []string{obsExecutionUnknown}}},
		{name: "2.3/not-tested/notation-after-timeout", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"guest":"Ada","amount":129}`))
			s.ok(s.write("create_booking", `{"guest":"ada","amount":"129.00"}`))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS",
			observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification}}},
		{name: "2.3/fail/duplicate", cfg: Config{Scenario: "F4"}, build: func(s *sess) {
			s.f4(s.write("create_booking", booking))
			s.f4(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, reason: "executed 2 times", violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.3/fail/retry-after", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.f2(a, 60000)
			s.wait(1500)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 49, capped: true, reason: "re-sent 1500 ms after an HTTP 429 that asked to wait 60000 ms",
			violations: []string{violationRetryAfter}, patches: []string{PatchRateLimit}}},
		{name: "2.3/fail-beats-not-tested", cfg: Config{Scenario: "F4"}, build: func(s *sess) {
			s.f4(s.write("create_booking", booking))
			s.f4(s.write("create_booking", booking))
			s.unknown(s.write("create_booking", `{"x":1}`))
			s.ok(s.write("create_booking", `{"x":1}`))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, observations: []string{obsExecutionUnknown}, patches: []string{PatchIdempotency}}},
		{name: "2.3/pass/scenario-fired", cfg: Config{Scenario: "F3"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.f3(a)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, reason: "Scenario F3 fired", observations: []string{obsRecoveredByRetry}}},
		{name: "2.3/pass/baseline-no-scenario", build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, reason: "Baseline only: no scenario"}},
		{name: "2.3/pass/baseline-F4", cfg: Config{Scenario: "F4"}, build: func(s *sess) {
			s.f4(s.write("create_booking", booking))
			s.f4(s.write("create_booking", `{"x":2}`))
		}, want: want{verdict: report.VerdictPass, total: 100, reason: "Baseline only: scenario F4"}},
		{name: "2.3/pass/with-unknown-op-and-a-known-one", build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
			s.write("create_booking", `{"x":2}`)
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsExecutionUnknown}}},
		{name: "2.3/not-tested/plugin-failure-blocks-pass", cfg: Config{Scenario: "F3"}, build: func(s *sess) {
			s.pluginFailure("dates", "deadline exceeded")
			a := s.write("create_booking", booking)
			s.f3(a)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: `Plugin "dates" failed (deadline exceeded)`, observations: []string{obsRecoveredByRetry},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if len(r.PluginFailures) != 1 || r.PluginFailures[0].Failures != 1 {
					t.Errorf("pluginFailures = %+v", r.PluginFailures)
				}
			}}},
		{name: "2.3/fail/plugin-failure-keeps-fail", cfg: Config{Scenario: "F4"}, build: func(s *sess) {
			s.pluginFailure("dates", "trap")
			s.f4(s.write("create_booking", booking))
			s.f4(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.3/chaos/pass", cfg: Config{Scenario: "chaos"}, build: func(s *sess) {
			s.chaos(s.call("get_booking", classify.Read, `{}`))
			a := s.write("create_booking", booking)
			s.chaos(a)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, reason: "Chaos mode injected 2 fault(s)", observations: []string{obsRecoveredByRetry}}},
		{name: "2.3/chaos/never-fired", cfg: Config{Scenario: "chaos"}, build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "Chaos mode injected no fault"}},
	})
}

func TestScore(t *testing.T) {
	runRules(t, []rule{
		{name: "2.4/F1-naive", cfg: Config{Scenario: "F1"}, build: func(s *sess) { s.evs = naive("F1").evs },
			want: want{verdict: report.VerdictFail, total: 0, capped: false, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
				check: func(t *testing.T, r report.Report, s report.Score, _ []report.Patch) {
					d := r.Violations[0].Duplicate
					if !d.AfterTimeout || d.Parallel || d.KeyUse != report.KeyUseNone || d.VerifiedBefore {
						t.Errorf("duplicate = %+v", d)
					}
					if *s.DuplicateSafety != 0 || *s.FailureHandling != 0 {
						t.Errorf("dimensions = %v / %v", *s.DuplicateSafety, *s.FailureHandling)
					}
				}}},
		{name: "2.4/F1-careful-verified", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.read()
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry}}},
		{name: "2.4/F1-silent", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification},
			check: func(t *testing.T, _ report.Report, s report.Score, _ []report.Patch) {
				if *s.DuplicateSafety != 100 || *s.FailureHandling != 50 || s.Weights != (report.Weights{DuplicateSafety: 60, FailureHandling: 40}) {
					t.Errorf("score = %+v", s)
				}
			}}},
		{name: "2.4/F2-immediate-resend-capped", cfg: Config{Scenario: "F2"}, build: func(s *sess) { s.evs = naive("F2").evs },
			want: want{verdict: report.VerdictFail, total: 49, capped: true, violations: []string{violationRetryAfter}, patches: []string{PatchRateLimit},
				check: func(t *testing.T, r report.Report, s report.Score, _ []report.Patch) {
					if *s.Uncapped != 60 {
						t.Errorf("uncapped = %d, want 60", *s.Uncapped)
					}
					if ra := r.Violations[0].RetryAfter; ra.RequiredMs != 60000 || ra.WaitedMs != 5 || ra.EarlyResends != 1 {
						t.Errorf("retryAfter = %+v", ra)
					}
				}}},
		{name: "2.4/F2-waits-recovers", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.f2(a, 60000)
			s.wait(61000)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsRecoveredByRetry},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if w := r.Observations[0].WaitedMs; w == nil || *w != 61000 {
					t.Errorf("waitedMs = %v", w)
				}
			}}},
		{name: "2.4/F2-resend-exactly-at-deadline-ok", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.f2(a, 60000)
			s.wait(60000)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsRecoveredByRetry}}},
		{name: "2.4/F2-abandon-not-penalised", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", booking), 60000)
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned}}},
		{name: "2.4/nothing-injected-duplicate-safety-only", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			s.ok(s.write("create_booking", `{"a":2}`))
		}, want: want{verdict: report.VerdictPass, total: 100,
			check: func(t *testing.T, _ report.Report, s report.Score, _ []report.Patch) {
				if s.FailureHandling != nil || s.Weights != (report.Weights{DuplicateSafety: 100, FailureHandling: 0}) {
					t.Errorf("score = %+v", s)
				}
			}}},
		{name: "2.4/upstream-rejected-not-in-failure-handling", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.rejected(s.write("create_booking", `{"a":1}`))
			s.f1(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsUpstreamRejected, obsVerifiedNoRetry},
			check: func(t *testing.T, _ report.Report, s report.Score, _ []report.Patch) {
				if s.Counts.InjectedOperations != 1 || s.Counts.JudgedOperations != 2 {
					t.Errorf("counts = %+v", s.Counts)
				}
			}}},
		{name: "2.4/round-half-up", build: func(s *sess) {
			// 8 judged operations, 1 executed at most once: 12.5 → 13.
			s.ok(s.write("create_booking", `{"a":0}`))
			for i := 1; i < 8; i++ {
				args := `{"a":` + string(rune('0'+i)) + `}`
				s.ok(s.write("create_booking", args))
				s.ok(s.write("create_booking", args))
			}
		}, want: want{verdict: report.VerdictFail, total: 13, violations: slices.Repeat([]string{violationDuplicate}, 7), patches: []string{PatchIdempotency},
			check: func(t *testing.T, r report.Report, s report.Score, ps []report.Patch) {
				if *s.DuplicateSafety != 12.5 || ps[0].Count != 7 {
					t.Errorf("duplicateSafety %v, patch count %d", *s.DuplicateSafety, ps[0].Count)
				}
				if !strings.Contains(r.VerdictReason, "7 violation(s) in all") {
					t.Errorf("reason %q", r.VerdictReason)
				}
			}}},
		{name: "2.4/cap-lowers-50", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			s.ok(s.write("create_booking", `{"a":2}`))
			s.ok(s.write("create_booking", `{"a":2}`))
		}, want: want{verdict: report.VerdictFail, total: 49, capped: true, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			check: func(t *testing.T, _ report.Report, s report.Score, _ []report.Patch) {
				if *s.Uncapped != 50 {
					t.Errorf("uncapped = %d", *s.Uncapped)
				}
			}}},
		{name: "2.4/not-tested-has-no-score", build: func(s *sess) {
			s.unknown(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsExecutionUnknown},
			check: func(t *testing.T, _ report.Report, s report.Score, _ []report.Patch) {
				if s.DuplicateSafety != nil || s.FailureHandling != nil || s.Uncapped != nil {
					t.Errorf("NOT_TESTED score carries values: %+v", s)
				}
			}}},
	})
}

func TestScoreWorkedExample(t *testing.T) {
	t.Run("2.4/worked-example", func(t *testing.T) {
		var js []*Judge
		for _, sc := range []string{"F1", "F2", "F3", "F4", "F5"} {
			js = append(js, naive(sc).judge(Config{Scenario: sc}))
		}
		wantVerdicts := []string{report.VerdictFail, report.VerdictFail, report.VerdictPass, report.VerdictFail, report.VerdictPass}
		for i, j := range js {
			if v, r := j.Verdict(); v != wantVerdicts[i] {
				t.Errorf("F%d: verdict %s (%s), want %s", i+1, v, r, wantVerdicts[i])
			}
		}
		s := Pool(js...)
		if s.Verdict != report.VerdictFail || *s.DuplicateSafety != 60 || *s.FailureHandling != 50 ||
			*s.Uncapped != 56 || *s.Total != 49 || !s.Capped {
			b, _ := json.Marshal(s)
			t.Errorf("pooled score = %s, want 60 %% / 50 %% → 56 → 49 capped FAIL", b)
		}
		// The careful agent over the same scenarios: 100 PASS.
		var cj []*Judge
		for _, sc := range []string{"F1", "F2", "F3", "F4", "F5"} {
			s := newSess()
			a := s.write("create_booking", booking)
			switch sc {
			case "F1":
				s.f1(a)
				s.read()
			case "F2":
				s.f2(a, 60000)
				s.read()
			case "F3":
				s.f3(a)
				s.read()
				s.ok(s.write("create_booking", booking))
			case "F4":
				s.f4(a)
			case "F5":
				s.f5(a)
				s.read()
				s.ok(s.write("create_booking", booking))
			}
			s.end()
			cj = append(cj, s.judge(Config{Scenario: sc}))
		}
		if s := Pool(cj...); s.Verdict != report.VerdictPass || *s.Total != 100 || s.Capped {
			b, _ := json.Marshal(s)
			t.Errorf("careful pooled = %s", b)
		}
		if s := Pool(); s.Verdict != report.VerdictNotTested || s.Total != nil {
			t.Errorf("empty pool = %+v", s)
		}
	})
}
