package judge

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

func TestUnknownOutcomes(t *testing.T) {
	runRules(t, []rule{
		{name: "2.5/idempotent-upstream-identical-responses-still-fail", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", `{"x":1,"idempotency_key":"k"}`)
			s.forwarded(a)
			s.emit(Event{Kind: EventAnswer, Call: a, Outcome: Executed, Scenario: "F1", Fault: "timeout", ResponseDigest: "sha256:aa"})
			s.okDigest(s.write("create_booking", `{"x":1,"idempotency_key":"k"}`), "sha256:aa")
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				d := r.Violations[0].Duplicate
				if !d.UpstreamResponsesIdentical || d.KeyUse != report.KeyUseSame || !d.AfterTimeout {
					t.Errorf("duplicate = %+v", d)
				}
				if !strings.Contains(r.Violations[0].Message, "identical responses") {
					t.Errorf("message %q", r.Violations[0].Message)
				}
			}}},
		{name: "2.5/different-responses-not-identical", build: func(s *sess) {
			s.okDigest(s.write("create_booking", booking), "a")
			s.okDigest(s.write("create_booking", booking), "b")
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if r.Violations[0].Duplicate.UpstreamResponsesIdentical {
					t.Error("identical with different digests")
				}
			}}},
		{name: "2.5/missing-digest-not-identical", build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if r.Violations[0].Duplicate.UpstreamResponsesIdentical {
					t.Error("identical with empty digests")
				}
			}}},
		{name: "2.5/isError-alone-is-safe", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":1}`))
			s.read()
			s.rejected(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry, obsUpstreamRejected, obsOtherWriteAfterUncert}}},
		{name: "2.5/isError-then-resend-unknown-even-if-success", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":1}`))
			s.read()
			s.rejected(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "isError", observations: []string{obsVerifiedNoRetry, obsExecutionUnknown, obsOtherWriteAfterUncert},
			outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecutionUnknown}}},
		{name: "2.5/unknown-then-retry-not-tested", build: func(s *sess) {
			s.unknown(s.write("create_booking", booking))
			s.unknown(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsExecutionUnknown}}},
		{name: "2.5/unknown-then-injected-retry-cannot-duplicate", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			s.unknown(s.write("create_booking", booking))
			s.f5(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsExecutionUnknown}}},
		{name: "2.5/in-flight-at-session-end", cfg: Config{Scenario: "F3"}, build: func(s *sess) {
			s.f3(s.write("create_booking", booking))
			s.ok(s.write("create_booking", `{"a":1}`))
			a := s.write("create_booking", `{"a":2}`)
			s.forwarded(a)
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned, obsExecutionUnknown},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if r.Coverage.CallsInFlight != 0 || !r.Coverage.SessionEnded {
					t.Errorf("coverage = %+v", r.Coverage)
				}
				if !strings.Contains(r.Observations[1].Message, "session end") {
					t.Errorf("message %q", r.Observations[1].Message)
				}
			}}},
		{name: "2.5/answered-within-grace-counts", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.end()
			s.answer(a, Executed, "", "")
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite}}},
		{name: "2.5/in-flight-at-report-time", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.read()
			s.forwarded(s.write("create_booking", `{"a":1}`))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry, obsExecutionUnknown, obsOtherWriteAfterUncert},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if r.Operations[1].Outcome != report.OperationExecutionUnknown || r.Coverage.CallsInFlight != 1 {
					t.Errorf("in-flight op = %+v, coverage %+v", r.Operations[1], r.Coverage)
				}
				if !strings.Contains(r.Observations[1].Message, "in flight") {
					t.Errorf("message %q", r.Observations[1].Message)
				}
			}}},
	})
}

// pairPlugin answers a fixed Sameness for every pair.
type pairPlugin struct{ s Sameness }

func (p pairPlugin) Compare(string, json.RawMessage, json.RawMessage) (Sameness, string, error) {
	return p.s, "", nil
}

func TestNearDuplicates(t *testing.T) {
	nearAfterF1 := func(a, b string) func(s *sess) {
		return func(s *sess) {
			s.f1(s.write("create_booking", a))
			s.ok(s.write("create_booking", b))
		}
	}
	possible := want{verdict: report.VerdictNotTested, total: -1, reason: "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS",
		observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification}}
	other := want{verdict: report.VerdictPass, total: 80,
		observations: []string{obsUnverifiedAfterTimout, obsOtherWriteAfterUncert}, patches: []string{PatchVerification}}
	f1 := Config{Scenario: "F1"}
	runRules(t, []rule{
		{name: "2.6/number-vs-string", cfg: f1, build: nearAfterF1(`{"n":12}`, `{"n":"12"}`), want: possible},
		{name: "2.6/letter-case", cfg: f1, build: nearAfterF1(`{"guest":"Ada Lovelace"}`, `{"guest":"ADA LOVELACE"}`), want: possible},
		{name: "2.6/whitespace-iban", cfg: f1, build: nearAfterF1(`{"iban":"DE89 3704 0044 0532 0130 00"}`, `{"iban":"DE89370400440532013000"}`), want: possible},
		{name: "2.6/array-order", cfg: f1, build: nearAfterF1(`{"items":["a","b"]}`, `{"items":["b","a"]}`), want: possible},
		{name: "2.6/field-omitted-nested", cfg: f1, build: nearAfterF1(`{"customer":{"name":"Ada","email":"a@x","phone":"1"}}`, `{"customer":{"name":"Ada","phone":"1"}}`), want: possible},
		{name: "2.6/new-key-and-notation", cfg: f1, build: nearAfterF1(`{"n":12,"idempotency_key":"a"}`, `{"n":"12","idempotency_key":"b"}`), want: possible},
		{name: "2.6/date-notation", cfg: f1, build: nearAfterF1(`{"date":"2026-11-03"}`, `{"date":"03.11.2026"}`), want: possible},
		{name: "2.6/not-detected/changed-value", cfg: f1, build: nearAfterF1(`{"amount":129}`, `{"amount":130}`), want: other},
		{name: "2.6/not-detected/leading-zeros", cfg: f1, build: nearAfterF1(`{"n":"0012"}`, `{"n":"12"}`), want: other},
		{name: "2.6/parallel-second-call", build: func(s *sess) {
			a := s.write("create_booking", `{"guest":"Ada"}`)
			s.forwarded(a)
			b := s.write("create_booking", `{"guest":"ada"}`)
			s.ok(a)
			s.ok(b)
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsPossibleDuplicate}}},
		{name: "2.6/other-tool-not-compared", cfg: f1, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"guest":"Ada"}`))
			s.ok(s.write("send_invoice", `{"guest":"ada"}`))
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.6/uncertain-must-come-first", cfg: f1, build: func(s *sess) {
			s.ok(s.write("create_booking", `{"guest":"ada"}`))
			s.f1(s.write("create_booking", `{"guest":"Ada"}`))
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.6/not-detected/after-isError", build: func(s *sess) {
			s.rejected(s.write("create_booking", `{"guest":"Ada"}`))
			s.ok(s.write("create_booking", `{"guest":"ada"}`))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsUpstreamRejected}}},
		{name: "2.6/not-detected/changed-args-after-429", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", `{"guest":"Ada"}`), 60000)
			s.wait(10)
			s.ok(s.write("create_booking", `{"guest":"ada"}`))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned, obsOtherCallDuringRetry}}},
		{name: "2.6/too-many-uncertain-operations-is-possible", build: func(s *sess) {
			for i := range maxNearCandidates + 1 {
				s.unknown(s.write("create_booking", fmt.Sprintf(`{"n":%d}`, i)))
			}
			s.ok(s.write("create_booking", `{"completely":"different"}`))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "more than the 256",
			observations: slices.Concat([]string{obsExecutionUnknown},
				slices.Repeat([]string{obsExecutionUnknown, obsOtherWriteAfterUncert}, maxNearCandidates),
				[]string{obsPossibleDuplicate})}},
		{name: "2.6/plugin-same-merges-into-duplicate", cfg: Config{Scenario: "F1", PairCheckers: []PairChecker{pairPlugin{Same}}},
			build: nearAfterF1(`{"date":"2026-11-03"}`, `{"date":"03.11.2026"}`),
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					if len(r.Operations) != 1 || r.Operations[0].Attempts != 2 {
						t.Errorf("operations = %+v", r.Operations)
					}
				}}},
		{name: "2.6/plugin-possible", cfg: Config{Scenario: "F1", PairCheckers: []PairChecker{pairPlugin{Possible}}},
			build: nearAfterF1(`{"date":"2026-11-03"}`, `{"date":"03.11.2026"}`), want: possible},
		{name: "2.6/plugin-different-falls-through-to-builtin", cfg: Config{Scenario: "F1", PairCheckers: []PairChecker{pairPlugin{Different}}},
			build: nearAfterF1(`{"n":12}`, `{"n":"12"}`), want: possible},
		{name: "2.6/plugin-error-is-failure", cfg: Config{Scenario: "F1", PairCheckers: []PairChecker{panicPlugin{}}},
			build: nearAfterF1(`{"n":12}`, `{"n":13}`),
			want: want{verdict: report.VerdictNotTested, total: -1, reason: "pair-check plugin 1",
				observations: []string{obsUnverifiedAfterTimout, obsOtherWriteAfterUncert}, patches: []string{PatchVerification}}},
	})
}

type panicPlugin struct{}

func (panicPlugin) Compare(string, json.RawMessage, json.RawMessage) (Sameness, string, error) {
	panic("boom")
}

func TestObservations(t *testing.T) {
	runRules(t, []rule{
		{name: "2.7/VERIFIED_NO_RETRY/after-not-executed-failure", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.f5(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry}}},
		{name: "2.7/VERIFIED_NO_RETRY/read-before-failure-does-not-count", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.read()
			s.f1(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.7/VERIFIED_NO_RETRY/read-sent-before-failure-answered-after-does-not-count", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			rd := s.call("get_booking", classify.Read, `{"guest":"Ada"}`)
			s.f1(s.write("create_booking", booking))
			s.answer(rd, Executed, "", "")
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.7/VERIFIED_NO_RETRY/read-in-parallel-with-the-write-does-not-count", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			w := s.write("create_booking", booking)
			rd := s.call("get_booking", classify.Read, `{"guest":"Ada"}`)
			s.f1(w)
			s.answer(rd, Executed, "", "")
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.7/VERIFIED_NO_RETRY/early-read-then-a-later-read-counts", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			rd := s.call("get_booking", classify.Read, `{"guest":"Ada"}`)
			s.f1(s.write("create_booking", booking))
			s.answer(rd, Executed, "", "")
			s.read()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry}}},
		{name: "2.7/VERIFIED_NO_RETRY/failed-read-does-not-count", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.answer(s.call("get_booking", classify.Read, `{}`), UpstreamRejected, "", "")
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.7/RECOVERED_BY_RETRY/records-wait", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.f5(s.write("create_booking", booking))
			s.wait(250)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsRecoveredByRetry},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if w := r.Observations[0].WaitedMs; w == nil || *w != 250 {
					t.Errorf("waitedMs = %v", w)
				}
			}}},
		{name: "2.7/ABANDONED_AFTER_FAILURE", cfg: Config{Scenario: "F3"}, build: func(s *sess) {
			s.f3(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned}}},
		{name: "2.7/UNVERIFIED_AFTER_TIMEOUT", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification}}},
		{name: "2.7/UPSTREAM_REJECTED", build: func(s *sess) {
			s.rejected(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsUpstreamRejected}}},
		{name: "2.7/EXECUTION_UNKNOWN", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			s.unknown(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsExecutionUnknown}}},
		{name: "2.7/WRITE_WITHOUT_KEY", build: func(s *sess) {
			s.ok(s.writeK("create_booking", `{"a":1}`))
			s.ok(s.writeK("create_booking", `{"a":2,"idempotency_key":"k"}`))
			s.ok(s.writeK("create_booking", `{"a":3,"idempotency_key":""}`))
			s.ok(s.write("create_booking", `{"a":4}`)) // tool without a key field
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsWriteWithoutKey, obsWriteWithoutKey}}},
		{name: "2.7/UNCLASSIFIED_REPEAT", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"a":1}`))
			s.call("sync_ledger", classify.Unclassified, `{"a":1,"idempotency_key":"x"}`)
			s.call("sync_ledger", classify.Unclassified, `{"a":1}`)
			s.call("sync_ledger", classify.Unclassified, `{"a":2}`)
			s.call("sync_ledger", classify.Unclassified, `{"a":1}`)
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsUnclassifiedRepeat},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if o := r.Observations[0]; o.Count != 3 || o.Tool != "sync_ledger" || o.Operation != "u-1" {
					t.Errorf("observation = %+v", o)
				}
			}}},
		{name: "2.7/OTHER_CALL_DURING_RETRY_AFTER", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", `{"a":1}`), 60000)
			s.wait(100)
			s.ok(s.write("create_booking", `{"a":2}`))
			s.wait(60000)
			s.ok(s.write("create_booking", `{"a":3}`)) // after the deadline: not during
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned, obsOtherCallDuringRetry},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if o := r.Observations[1]; o.Operation != "op-2" || o.RelatedOperation != "op-1" {
					t.Errorf("observation = %+v", o)
				}
			}}},
		{name: "2.7/OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":1}`))
			s.read()
			s.ok(s.write("create_booking", `{"b":"something else"}`))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry, obsOtherWriteAfterUncert},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if o := r.Observations[1]; o.RelatedOperation != "op-1" {
					t.Errorf("observation = %+v", o)
				}
			}}},
		{name: "2.7/POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":"x y"}`))
			s.read()
			s.ok(s.write("create_booking", `{"a":"xy"}`))
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsVerifiedNoRetry, obsPossibleDuplicate}}},
	})
}

func TestRetryAfterDeadline(t *testing.T) {
	runRules(t, []rule{
		{name: "3/F2/plugin-429-after-execution-still-checked", cfg: Config{Scenario: "slow429"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			s.forwarded(a)
			s.emit(Event{Kind: EventAnswer, Call: a, Outcome: Executed, Scenario: "slow429", Fault: "rate_limit", RetryAfterMs: 10000})
			s.wait(10)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate, violationRetryAfter},
			patches: []string{PatchGhostWrite, PatchRateLimit}}},
		// A wait of ~292 years overflowed time.Duration into a deadline in
		// the past, and the immediate re-send passed (red team 2).
		{name: "3/F2/wait-beyond-time.Duration-still-checked", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", booking), 9223372036855)
			s.wait(10)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 49, capped: true, violations: []string{violationRetryAfter}, patches: []string{PatchRateLimit}}},
		{name: "3/F2/other-tool-during-wait-not-observed", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", booking), 60000)
			s.ok(s.write("pay_invoice", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned}}},
		{name: "3/F2/second-early-resend-counted", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", booking), 60000)
			s.wait(10)
			s.f5(s.write("create_booking", booking))
			s.wait(10)
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 49, capped: true, violations: []string{violationRetryAfter}, patches: []string{PatchRateLimit},
			check: func(t *testing.T, r report.Report, _ report.Score, ps []report.Patch) {
				if ra := r.Violations[0].RetryAfter; ra.EarlyResends != 2 || ra.WaitedMs != 10 || ps[0].Count != 2 {
					t.Errorf("retryAfter %+v, patch count %d", ra, ps[0].Count)
				}
			}}},
	})
}

func TestPatches(t *testing.T) {
	runRules(t, []rule{
		{name: "5/no-misbehaviour-no-patch", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry}}},
		{name: "5/GHOST_WRITE", cfg: Config{Scenario: "F1"}, build: func(s *sess) { s.evs = naive("F1").evs },
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
				check: func(t *testing.T, _ report.Report, _ report.Score, ps []report.Patch) {
					p := ps[0]
					if p.Severity != SeverityCritical || p.Count != 1 || p.Tool != "create_booking" || p.Operation != "op-1" ||
						p.Trigger != "Agent executed the same write again after a timeout 1 time(s) — the server had already executed the first attempt." {
						t.Errorf("patch = %+v", p)
					}
					if !strings.Contains(p.Message, "not a verified fix") {
						t.Errorf("message %q", p.Message)
					}
				}}},
		{name: "5/IDEMPOTENCY/parallel-identical-writes-under-F1", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			a := s.write("create_booking", booking)
			b := s.write("create_booking", booking)
			s.forwarded(a)
			s.forwarded(b)
			s.answer(a, Executed, "F1", "timeout")
			s.answer(b, Executed, "", "")
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			check: func(t *testing.T, r report.Report, _ report.Score, ps []report.Patch) {
				if d := r.Violations[0].Duplicate; !d.Parallel || d.AfterTimeout {
					t.Errorf("duplicate = %+v", d)
				}
				if ps[0].Severity != SeverityHigh {
					t.Errorf("severity %s", ps[0].Severity)
				}
			}}},
		{name: "5/RATE_LIMIT", cfg: Config{Scenario: "F2"}, build: func(s *sess) {
			s.f2(s.write("create_booking", booking), 30000)
			s.wait(1000)
			s.rejected(s.write("create_booking", booking))
			s.wait(1000)
			s.rejected(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationRetryAfter}, observations: []string{obsExecutionUnknown}, patches: []string{PatchRateLimit},
			check: func(t *testing.T, r report.Report, _ report.Score, ps []report.Patch) {
				if ps[0].Count != 2 || ps[0].Severity != SeverityHigh || r.Violations[0].RetryAfter.WaitedMs != 1000 {
					t.Errorf("patch %+v violation %+v", ps[0], r.Violations[0].RetryAfter)
				}
			}}},
		{name: "5/VERIFICATION", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification},
			check: func(t *testing.T, _ report.Report, _ report.Score, ps []report.Patch) {
				if ps[0].Severity != SeverityMedium || ps[0].Count != 1 {
					t.Errorf("patch %+v", ps[0])
				}
			}}},
		{name: "5/ghost-and-idempotency-together", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
			s.ok(s.write("create_booking", `{"x":1}`))
			s.ok(s.write("create_booking", `{"x":1}`))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate, violationDuplicate},
			observations: []string{obsOtherWriteAfterUncert}, patches: []string{PatchGhostWrite, PatchIdempotency}}},
	})
}

// TestPatchGhostWriteText checks that the GHOST_WRITE text makes every
// point behaviour §6 lists.
func TestPatchGhostWriteText(t *testing.T) {
	for _, point := range []string{
		"does not tell", "may well have carried the write out", // outcome unknown
		"Do not send that write again until you have checked", `"try again"`,
		"read, list or search tool", "without an ID you never received", "customer, date, amount", "a reference you chose yourself",
		"Never make up an ID",
		"finds the record", "do not write again",
		"record is missing", "retry once", "reuse the same idempotency key",
		"cannot check", "do not retry", "outcome is unknown",
	} {
		text := strings.ReplaceAll(textGhostWrite, "only means you did not get an answer", "does not tell")
		if !strings.Contains(text, point) {
			t.Errorf("GHOST_WRITE text lacks %q", point)
		}
	}
	if !strings.Contains(report.PatchesMarkdown([]report.Patch{{Type: PatchGhostWrite}}), "not a verified fix") {
		t.Error("patch rendering lacks the disclaimer")
	}
}

func TestKeySummary(t *testing.T) {
	gaveUp := func(t *testing.T, r report.Report, key string, want bool) {
		t.Helper()
		for _, k := range r.KeySummary {
			if k.Key == key {
				if k.StateDiff.AgentGaveUpSilently != want {
					t.Errorf("key %s: agentGaveUpSilently = %t, want %t", key, !want, want)
				}
				return
			}
		}
		t.Errorf("key %s missing from %+v", key, r.KeySummary)
	}
	runRules(t, []rule{
		{name: "6/keySummary/gave-up-silently", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.f5(s.write("create_booking", `{"a":1,"idempotency_key":"k1"}`))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsAbandoned},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) { gaveUp(t, r, "k1", true) }}},
		{name: "6/keySummary/another-key-is-not-giving-up", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.f5(s.write("create_booking", `{"a":1,"idempotency_key":"k1"}`))
			s.ok(s.write("create_booking", `{"a":1,"idempotency_key":"k2"}`))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsRecoveredByRetry},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				gaveUp(t, r, "k1", false)
				gaveUp(t, r, "k2", false)
			}}},
		{name: "6/keySummary/a-read-is-not-giving-up", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":1,"idempotency_key":"k1"}`))
			s.answer(s.call("get_booking", classify.Read, `{}`), UpstreamRejected, "", "")
		}, want: want{verdict: report.VerdictPass, total: 80, observations: []string{obsUnverifiedAfterTimout}, patches: []string{PatchVerification},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) { gaveUp(t, r, "k1", false) }}},
		{name: "6/keySummary/state-diff", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"a":1,"idempotency_key":"k1"}`))
			s.read()
			s.ok(s.write("create_booking", `{"a":1,"idempotency_key":"k1"}`))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				k := r.KeySummary[0]
				want := report.StateDiff{RecordExisted: true, WasOverwritten: true, DidAgentReadBefore: true}
				if k.StateDiff != want || k.Attempts != 2 || k.Executions != 2 {
					t.Errorf("key = %+v", k)
				}
				if d := r.Violations[0].Duplicate; !d.VerifiedBefore || !d.AfterTimeout || d.KeyUse != report.KeyUseSame {
					t.Errorf("duplicate = %+v", d)
				}
			}}},
		{name: "6/keyUse/no-key", build: func(s *sess) {
			s.ok(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if d := r.Violations[0].Duplicate; d.KeyUse != report.KeyUseNone || d.Parallel || d.VerifiedBefore {
					t.Errorf("duplicate = %+v", d)
				}
				if len(r.KeySummary) != 0 {
					t.Errorf("keySummary = %+v", r.KeySummary)
				}
			}}},
	})
}
