package judge

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// TestOperationStringsNotValidUnicode: arguments with a lone surrogate
// escape (JavaScript cutting an emoji) or invalid UTF-8 bytes are valid
// JSON that the relay forwards; they are identified exactly like any other
// arguments (key fields stripped, member order irrelevant), so a re-send
// with a new key is a duplicate.
func TestOperationStringsNotValidUnicode(t *testing.T) {
	f1 := Config{Scenario: "F1"}
	ghostThen := func(a, b string) func(s *sess) {
		return func(s *sess) {
			s.f1(s.write("create_booking", a))
			s.wait(1000)
			s.ok(s.write("create_booking", b))
		}
	}
	dup := want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite}, outcomes: []report.OperationOutcome{report.OperationDuplicate}}
	runRules(t, []rule{
		{name: "2.1/lone-surrogate/ghost-write-then-new-key", cfg: f1,
			build: ghostThen(`{"guest":"Ada\ud83d","idempotency_key":"k1"}`, `{"guest":"Ada\ud83d","idempotency_key":"k2"}`), want: dup},
		{name: "2.1/lone-surrogate/ghost-write-then-members-reordered", cfg: f1,
			build: ghostThen(`{"guest":"Ada\ud83d","nights":2}`, `{"nights":2, "guest":"Ada\uD83D"}`), want: dup},
		{name: "2.1/invalid-utf8/executed-twice-new-key", build: func(s *sess) {
			s.ok(s.write("create_booking", "{\"guest\":\"Ada\xff\",\"idempotency_key\":\"k1\"}"))
			s.ok(s.write("create_booking", "{\"guest\":\"Ada\xff\",\"idempotency_key\":\"k2\"}"))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.1/lone-surrogate/other-surrogate-is-other-operation", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"guest":"Ada\ud83d"}`))
			s.ok(s.write("create_booking", `{"guest":"Ada\ud83e"}`))
		}, want: want{verdict: report.VerdictPass, total: 100, outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecuted}}},
		{name: "2.6/lone-surrogate/ghost-write-then-letter-case", cfg: f1,
			build: ghostThen(`{"guest":"Ada\ud83d"}`, `{"guest":"ADA\ud83d"}`),
			want: want{verdict: report.VerdictNotTested, total: -1, reason: "differ only by letter case",
				observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification}}},
	})
}

// TestOperationUnidentified: arguments that are not JSON at all (the relay
// normally rejects them) still match byte-identical repeats, but the run
// cannot pass: the operation's identity is not known.
func TestOperationUnidentified(t *testing.T) {
	runRules(t, []rule{
		{name: "2.1/unidentified/not-tested", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"guest":`))
		}, want: want{verdict: report.VerdictNotTested, total: -1,
			reason: `The arguments of a call of "create_booking" are not valid JSON, so its operation could not be identified and only byte-identical repeats of it can be recognised.`}},
		{name: "2.1/unidentified/byte-identical-repeat-still-fails", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"guest":`))
			s.ok(s.write("create_booking", `{"guest":`))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.6/unidentified/after-timeout-is-possible", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"guest":"Ada"}`))
			s.ok(s.write("create_booking", `{"guest":"Ada"`))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "are not valid JSON, so they cannot be compared",
			observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification}}},
	})
}

// TestOperationCaseClash: member names that differ only in letter case
// mean different things to different servers (Go's encoding/json matches
// names case-insensitively, last wins), so such a run cannot pass.
func TestOperationCaseClash(t *testing.T) {
	runRules(t, []rule{
		{name: "2.1/case-clash/not-tested", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"room":"1","Room":"12"}`))
			s.ok(s.write("create_booking", `{"room":"2","Room":"12"}`))
		}, want: want{verdict: report.VerdictNotTested, total: -1,
			reason: `Arguments of "create_booking" have member names that differ only in letter case ("room", "Room"); servers disagree on what such JSON means, so operations cannot be compared.`}},
		{name: "2.1/case-clash/nested", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"guest":{"Name":"Ada","name":"Bob"}}`))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: `("Name", "name")`}},
		{name: "2.1/case-clash/literal-repeat-still-fails", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"room":"1","Room":"12"}`))
			s.ok(s.write("create_booking", `{"Room":"12","room":"1"}`))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "2.1/case-clash/key-fields-do-not-count", build: func(s *sess) {
			s.ok(s.write("create_booking", `{"idempotency_key":"a","Idempotency_Key":"a","room":"1"}`))
		}, want: want{verdict: report.VerdictPass, total: 100}},
	})
}

// onceSilentEquiv has no opinion about its first call and gives every
// later call the same key (a deliberately wide equivalence).
type onceSilentEquiv struct{ n *int }

func (e onceSilentEquiv) Key(string, json.RawMessage) (string, bool, error) {
	*e.n++
	return "all-the-same", *e.n > 1, nil
}
func (onceSilentEquiv) Name() string { return "wide" }

// flakyEquiv gives every call the same key but fails its second call.
type flakyEquiv struct{ n *int }

func (e flakyEquiv) Key(string, json.RawMessage) (string, bool, error) {
	*e.n++
	if *e.n == 2 {
		return "", false, errors.New("deadline exceeded")
	}
	return "all-the-same", true, nil
}
func (flakyEquiv) Name() string { return "flaky" }

// rawEquiv narrows: it keys on the raw arguments, key fields included.
type rawEquiv struct{}

func (rawEquiv) Key(_ string, a json.RawMessage) (string, bool, error) { return string(a), true, nil }

// TestOperationPluginsOnlyWiden: equivalence plugins may widen "same
// operation" (behaviour §4.1, §9), never narrow it: the built-in key always
// registers, and literal equality is a duplicate whatever a plugin says.
func TestOperationPluginsOnlyWiden(t *testing.T) {
	const args = `{"guest":"Ada","nights":2}`
	twice := func(s *sess) {
		s.ok(s.write("create_booking", args))
		s.ok(s.write("create_booking", args))
	}
	dup := func(reason string) want {
		return want{verdict: report.VerdictFail, total: 0, reason: reason, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}
	}
	n1, n2, n3 := 0, -100, 0
	runRules(t, []rule{
		{name: "2.1/plugin-fails-on-repeat-still-duplicate", cfg: Config{Equivalences: []Equivalence{flakyEquiv{&n1}}},
			build: twice, want: dup("executed 2 times")},
		{name: "2.1/plugin-disabled-between-repeats-still-duplicate", cfg: Config{Equivalences: []Equivalence{flakyEquiv{&n2}}},
			build: func(s *sess) {
				s.ok(s.write("create_booking", args))
				s.pluginDisabled("flaky", "disabled after 5 consecutive failures")
				s.ok(s.write("create_booking", args))
			}, want: dup("executed 2 times")},
		{name: "2.1/narrowing-plugin-cannot-hide-new-key-duplicate", cfg: Config{Equivalences: []Equivalence{rawEquiv{}}},
			build: func(s *sess) {
				s.ok(s.write("create_booking", `{"guest":"Ada","idempotency_key":"k1"}`))
				s.ok(s.write("create_booking", `{"guest":"Ada","idempotency_key":"k2"}`))
			}, want: dup("executed 2 times")},
		{name: "2.1/plugin-key-alias-joins-later-calls", cfg: Config{Equivalences: []Equivalence{dateEquiv{}}},
			build: func(s *sess) {
				s.ok(s.write("create_booking", `{"date":"2026-11-03"}`))
				s.ok(s.write("create_booking", `{"date":"03.11.2026"}`))
				s.ok(s.write("create_booking", `{"date":"03.11.2026"}`))
			}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					if len(r.Operations) != 1 || r.Operations[0].Executions != 3 {
						t.Fatalf("operations = %+v, want one with 3 executions", r.Operations)
					}
					// The third call joins through the alias the second made:
					// the same rule is named (behaviour §5.4).
					for i, a := range r.Operations[0].AttemptLog {
						if got, want := a.JoinedBy != nil, i > 0; got != want || (got && a.JoinedBy.Rule != report.RuleEquivKey) {
							t.Errorf("attempt %d joinedBy %+v", i, a.JoinedBy)
						}
					}
				}}},
		{name: "2.1/plugin-key-of-another-operation-is-possible-duplicate", cfg: Config{Scenario: "F5", Equivalences: []Equivalence{onceSilentEquiv{&n3}}},
			build: func(s *sess) {
				s.f5(s.write("create_booking", `{"a":1}`)) // op-1, no plugin opinion
				s.ok(s.write("create_booking", `{"a":2}`)) // op-2, plugin key K
				s.ok(s.write("create_booking", `{"a":1}`)) // literally op-1, plugin key K (op-2)
			}, want: want{verdict: report.VerdictNotTested, total: -1,
				reason:       `Write operation op-1 of "create_booking" may repeat operation op-2 — wide gives the arguments of create_booking the same key as those of op-2, but literally they are operation op-1 — so a double execution cannot be ruled out (POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS).`,
				observations: []string{obsRecoveredByRetry, obsPossibleDuplicate},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					o := r.Observations[1]
					if o.RelatedOperation != "op-2" || !strings.HasPrefix(o.Message, "A plugin says it is operation op-2 of the same tool;") ||
						o.RelatedBy == nil || *o.RelatedBy != (report.RuleInfo{Rule: report.RuleEquivKey, Plugin: "wide"}) {
						t.Errorf("observation = %+v (relatedBy %+v)", o, o.RelatedBy)
					}
					// The literal repeat stays op-1's, not joined by the plugin.
					if a := r.Operations[0].AttemptLog[1]; a.JoinedBy != nil || a.Arguments != nil {
						t.Errorf("op-1's repeat %+v", a)
					}
				}}},
		{name: "2.6/pair-check-same-as-another-operation-is-possible-duplicate", cfg: Config{PairCheckers: []PairChecker{pairPlugin{Same}}},
			build: func(s *sess) {
				s.f5(s.write("create_booking", `{"a":1}`)) // op-1, not executed
				s.f1(s.write("create_booking", `{"a":2}`)) // op-2, ghost write
				s.ok(s.write("create_booking", `{"a":1}`)) // literally op-1; the plugin says op-2
			}, want: want{verdict: report.VerdictNotTested, total: -1,
				reason:       `may repeat operation op-2 — a pair-check plugin judged the arguments of create_booking the same operation as op-2, but their key makes them operation op-1 —`,
				observations: []string{obsRecoveredByRetry, obsPossibleDuplicate, obsUnverifiedAfterTimout}, patches: []string{PatchVerification},
				check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
					if len(r.Operations) != 2 || r.Operations[0].Attempts != 2 || r.Operations[1].Attempts != 1 {
						t.Errorf("operations = %+v, want op-1 with 2 attempts and op-2 with 1", r.Operations)
					}
					for _, o := range r.Observations {
						if o.Type == obsPossibleDuplicate && (o.RelatedBy == nil || o.RelatedBy.Rule != report.RuleEquivSame || o.RelatedBy.Plugin == "") {
							t.Errorf("relatedBy %+v, want the pair check", o.RelatedBy)
						}
					}
				}}},
	})
}

// TestNearDuplicateBeyondMaxDepth: a re-send that differs only in letter case
// deeper than the detector compares is a possible duplicate, not a PASS.
func TestNearDuplicateBeyondMaxDepth(t *testing.T) {
	deep := func(v string) string { return strings.Repeat(`{"a":`, 300) + v + strings.Repeat(`}`, 300) }
	runRules(t, []rule{
		{name: "2.6/any-depth/letter-case-at-300", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", deep(`"Ada"`)))
			s.ok(s.write("create_booking", deep(`"ADA"`)))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "nesting depth beyond 256",
			observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification}}},
	})
}

// TestNearDuplicateAfterGhostWrite: after an F1 ghost write, a re-send that
// differs only by a detected transformation is NOT_TESTED, never PASS.
func TestNearDuplicateAfterGhostWrite(t *testing.T) {
	cases := []struct{ name, a, b string }{
		{"num-vs-string", `{"guest":"Ada","amount":12}`, `{"guest":"Ada","amount":"12"}`},
		{"1e3-vs-1000", `{"guest":"Ada","amount":1000}`, `{"guest":"Ada","amount":"1e3"}`},
		{"str-decimals", `{"guest":"Ada","amount":"129.00"}`, `{"guest":"Ada","amount":"129"}`},
		{"case", `{"guest":"Ada Lovelace"}`, `{"guest":"ADA LOVELACE"}`},
		{"iban-space", `{"iban":"DE89 3704 0044 0532 0130 00"}`, `{"iban":"DE89370400440532013000"}`},
		{"nfd", `{"guest":"Zo\u00e9"}`, `{"guest":"Zoe\u0301"}`},
		{"zwsp", `{"guest":"Ada"}`, `{"guest":"A\u200bda"}`},
		{"bidi", `{"guest":"Ada"}`, `{"guest":"\u202aAda\u202c"}`},
		{"null-empty", `{"guest":"Ada","note":null}`, `{"guest":"Ada","note":""}`},
		{"array-order", `{"guests":["Ada","Bob"]}`, `{"guests":["Bob","Ada"]}`},
		{"nested-field-added", `{"customer":{"name":"Ada"},"nights":2}`, `{"customer":{"name":"Ada","email":"a@x"},"nights":2}`},
		{"fullwidth-digits", `{"amount":12}`, `{"amount":"１２"}`},
		{"top-level-field-added", `{"guest":"Ada"}`, `{"guest":"Ada","note":"retry"}`},
		{"empty-member-vs-none", `{"note":null}`, `{}`},
		{"empty-string-member-vs-null-args", `{"note":""}`, `null`},
		{"blank-member-vs-absent-args", `{"note":" \u200b"}`, ``},
		{"ws-only-vs-null", `{"guest":"Ada","note":" "}`, `{"guest":"Ada","note":null}`},
		{"kelvin-case", `{"unit":"K"}`, `{"unit":"\u212a"}`},
		{"sharp-s", `{"street":"Straße"}`, `{"street":"STRASSE"}`},
	}
	var cls []rule
	for _, tc := range cases {
		cls = append(cls, rule{name: "2.6/after-ghost-write/" + tc.name, cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", tc.a))
			s.wait(1000)
			s.ok(s.write("create_booking", tc.b))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS",
			observations: []string{obsUnverifiedAfterTimout, obsPossibleDuplicate}, patches: []string{PatchVerification}}})
	}
	// Disjoint members with values are not near-duplicates (a rename).
	cls = append(cls, rule{name: "2.6/after-ghost-write/not-detected/disjoint-members", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
		s.f1(s.write("create_booking", `{"a":1}`))
		s.ok(s.write("create_booking", `{"b":2}`))
	}, want: want{verdict: report.VerdictPass, total: 80,
		observations: []string{obsUnverifiedAfterTimout, obsOtherWriteAfterUncert}, patches: []string{PatchVerification}}})
	runRules(t, cls)
}

// TestVerdictPossibleDuplicateReason: the reason is true whichever
// attempt is the uncertain one (here the re-send, still in flight at the
// end, after an F1 ghost write).
func TestVerdictPossibleDuplicateReason(t *testing.T) {
	runRules(t, []rule{
		{name: "2.3/possible-duplicate/ghost-write-then-resend-in-flight-at-end", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.f1(s.write("create_booking", booking))
			s.forwarded(s.write("create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictNotTested, total: -1,
			reason:       `Write operation op-1 of "create_booking" has 2 attempts and one of them got no usable answer (outcome unknown), so a correct retry and a double execution cannot be told apart.`,
			observations: []string{obsExecutionUnknown}}},
		{name: "2.3/possible-duplicate/unknown-then-resend", build: func(s *sess) {
			s.unknown(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1,
			reason:       `has 2 attempts and one of them got no usable answer (outcome unknown)`,
			observations: []string{obsExecutionUnknown}}},
		{name: "2.3/possible-duplicate/isError-then-resend", build: func(s *sess) {
			s.rejected(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1,
			reason:       `has 2 attempts and the upstream answered one of them with isError`,
			observations: []string{obsExecutionUnknown}}},
	})
}
