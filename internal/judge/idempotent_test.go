package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// writeI is a write call of an idempotent tool (behaviour §4.8).
func (s *sess) writeI(tool, args string) int64 {
	s.next++
	s.emit(Event{Kind: EventCall, Call: s.next, Tool: tool, Class: classify.Write, Arguments: json.RawMessage(args), Idempotent: true})
	return s.next
}

const status = `{"room":"12","status":"clean"}`

func TestIdempotentTools(t *testing.T) {
	runRules(t, []rule{
		{name: "11.2/idempotent-repeat-is-no-violation", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.ok(s.writeI("set_status", status))
			s.ok(s.writeI("set_status", status))
			s.ok(s.writeI("set_status", status))
			s.f1(s.write("create_booking", booking))
			s.read()
		}, want: want{verdict: report.VerdictPass, total: 100, reason: "1 idempotent operation(s) were repeated, which is allowed",
			observations: []string{obsIdempotentRepeat, obsVerifiedNoRetry}, outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecuted},
			check: func(t *testing.T, r report.Report, sc report.Score, _ []report.Patch) {
				o := r.Observations[0]
				if o.Tool != "set_status" || o.Operation != "op-1" || o.Executions != 3 || !strings.Contains(o.Message, "idempotent") {
					t.Errorf("IDEMPOTENT_REPEAT = %+v", o)
				}
				if sc.Counts.JudgedOperations != 2 || sc.Counts.ExecutedAtMostOnce != 2 {
					t.Errorf("counts = %+v: the idempotent repeat must count as safe", sc.Counts)
				}
				if r.Operations[0].Executions != 3 {
					t.Errorf("executions = %d, want 3", r.Operations[0].Executions)
				}
			}}},
		{name: "11.2/same-repeat-not-idempotent-fails", cfg: Config{}, build: func(s *sess) {
			s.ok(s.write("set_status", status))
			s.ok(s.write("set_status", status))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
		{name: "11.2/only-idempotent-writes-scenario-never-fired", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.ok(s.writeI("set_status", status))
			s.ok(s.writeI("set_status", status))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "Scenario F1 never fired: all 2 write call(s) were of idempotent tools",
			observations: []string{obsIdempotentRepeat}}},
		{name: "11.2/not-fired-with-a-plain-write-keeps-the-old-reason", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.ok(s.writeI("set_status", status))
			s.rejected(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "Scenario F1 never fired (it was not applied to any call)",
			observations: []string{obsUpstreamRejected}}},
		{name: "11.2/retry-after-unknown-outcome-is-fine", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.unknown(s.writeI("set_status", status))
			s.ok(s.writeI("set_status", status))
			s.f5(s.write("create_booking", booking))
			s.ok(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsIdempotentRepeat, obsRecoveredByRetry},
			outcomes: []report.OperationOutcome{report.OperationExecuted, report.OperationExecuted},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if o := r.Observations[0]; o.Executions != 1 || !strings.Contains(o.Message, "1 of them with an unknown outcome") {
					t.Errorf("IDEMPOTENT_REPEAT = %+v", o)
				}
			}}},
		{name: "11.2/unknown-retry-not-idempotent-not-tested", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.unknown(s.write("set_status", status))
			s.ok(s.write("set_status", status))
			s.f5(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsExecutionUnknown, obsAbandoned}}},
		{name: "11.2/near-duplicate-rule-skips-idempotent", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.unknown(s.writeI("set_status", `{"room":"12","status":"clean"}`))
			s.ok(s.writeI("set_status", `{"room":12,"status":"CLEAN"}`))
			s.f5(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsExecutionUnknown, obsAbandoned},
			outcomes: []report.OperationOutcome{report.OperationExecutionUnknown, report.OperationExecuted, report.OperationNotExecuted}}},
		{name: "11.2/near-duplicate-rule-holds-for-others", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.unknown(s.write("set_status", `{"room":"12","status":"clean"}`))
			s.ok(s.write("set_status", `{"room":12,"status":"CLEAN"}`))
			s.f5(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictNotTested, total: -1, observations: []string{obsExecutionUnknown, obsPossibleDuplicate, obsAbandoned}}},
		{name: "11.2/rejected-twice-is-rejected", cfg: Config{Scenario: "F5"}, build: func(s *sess) {
			s.rejected(s.writeI("set_status", status))
			s.rejected(s.writeI("set_status", status))
			s.f5(s.write("create_booking", booking))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsUpstreamRejected, obsAbandoned},
			outcomes: []report.OperationOutcome{report.OperationUpstreamRejected, report.OperationNotExecuted}}},
		{name: "11.2/all-idempotent-unknown-is-not-tested", cfg: Config{}, build: func(s *sess) {
			s.unknown(s.writeI("set_status", status))
			s.unknown(s.writeI("set_status", status))
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "unknown for all 1", observations: []string{obsExecutionUnknown}}},
		{name: "11.2/chaos-then-idempotent-repeats-handled", cfg: Config{Scenario: "chaos"}, build: func(s *sess) {
			s.chaos(s.writeI("set_status", status))
			s.ok(s.writeI("set_status", status))
			s.ok(s.writeI("set_status", status))
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsIdempotentRepeat}}},
		{name: "11.2/call-without-idempotency-makes-the-operation-strict", cfg: Config{}, build: func(s *sess) {
			s.ok(s.writeI("set_status", status))
			s.ok(s.write("set_status", status))
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchIdempotency}}},
	})
}

// TestIdempotentRepeatSchema: a report file with IDEMPOTENT_REPEAT and an
// idempotent toolClassification entry validates against the schema, and
// the schema rejects the observation without its executions.
func TestIdempotentRepeatSchema(t *testing.T) {
	s := newSess()
	s.ok(s.writeI("set_status", status))
	s.ok(s.writeI("set_status", status))
	j := s.judge(Config{})
	tools := json.RawMessage(`[{"name":"set_status","class":"write","reason":"r","keyFields":[],"idempotent":true}]`)
	file := j.AppendFile(nil, report.FileMeta{Status: "finished", ToolClassification: tools})
	if !strings.Contains(string(file), `"type":"IDEMPOTENT_REPEAT","tool":"set_status","operation":"op-1"`) ||
		!strings.Contains(string(file), `"executions":2}`) {
		t.Fatalf("report file lacks the observation: %s", file)
	}
	v := newSchemaValidator(t, report.Schema)
	if errs := v.validate(file); len(errs) != 0 {
		t.Fatalf("valid file rejected: %v", errs)
	}
	for _, m := range [][2]string{
		{`,"executions":2}`, `}`},
		{`"idempotent":true`, `"idempotent":false`},
	} {
		bad := strings.Replace(string(file), m[0], m[1], 1)
		if bad == string(file) {
			t.Fatalf("mutation %q not applicable", m[0])
		}
		if errs := v.validate([]byte(bad)); len(errs) == 0 {
			t.Errorf("mutation %q → %q accepted", m[0], m[1])
		}
	}
}
