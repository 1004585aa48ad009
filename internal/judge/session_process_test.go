package judge

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// open opens a session; own: with an upstream process of its own.
func (s *sess) open(id string, own bool) {
	s.emit(Event{Kind: EventSession, Session: id, Transport: "http", OwnUpstream: own})
}

// writeIn is a write call sent in session id.
func (s *sess) writeIn(session, tool, args string) int64 {
	s.next++
	s.emit(Event{Kind: EventCall, Call: s.next, Tool: tool, Class: classify.Write, Arguments: json.RawMessage(args), AcceptsKey: true, Session: session})
	return s.next
}

// TestRepeatAcrossUpstreamProcesses: with --upstream-per-session (sessions
// with upstream processes of their own, behaviour §8.3) a repeat of an
// operation in another session's process is not a proven duplicate
// (NOT_TESTED, REPEAT_ACROSS_UPSTREAM_PROCESSES); two executions in one
// process still are (FAIL); with one shared process (no OwnUpstream) the
// sessions are one backend, as before (FAIL).
func TestRepeatAcrossUpstreamProcesses(t *testing.T) {
	const booking = `{"guest":"Ada","date":"2027-01-02","idempotency_key":"k1"}`
	runRules(t, []rule{
		{name: "8.3/repeat-in-another-process-is-not-tested", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.open("s1", true)
			s.f1(s.writeIn("s1", "create_booking", booking))
			s.open("s2", true)
			s.ok(s.writeIn("s2", "create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictNotTested, total: -1, reason: "REPEAT_ACROSS_UPSTREAM_PROCESSES",
			observations: []string{obsAcrossProcesses}, outcomes: []report.OperationOutcome{report.OperationExecutionUnknown},
			check: func(t *testing.T, r report.Report, _ report.Score, _ []report.Patch) {
				if len(r.Violations) != 0 {
					t.Errorf("violations = %+v, want none", r.Violations)
				}
				if o := r.Observations[0]; o.Operation != "op-1" || !strings.Contains(o.Message, "2 sessions") {
					t.Errorf("observation = %+v", o)
				}
				if r.Operations[0].Executions != 2 {
					t.Errorf("executions = %d, want 2 (counted, not judged)", r.Operations[0].Executions)
				}
			}}},
		{name: "8.3/two-executions-in-one-process-fail", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.open("s1", true)
			s.f1(s.writeIn("s1", "create_booking", booking))
			s.ok(s.writeIn("s1", "create_booking", booking))
			s.open("s2", true)
			s.ok(s.writeIn("s2", "create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite}}},
		{name: "8.3/one-shared-process-is-one-backend", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.open("s1", false)
			s.f1(s.writeIn("s1", "create_booking", booking))
			s.open("s2", false)
			s.ok(s.writeIn("s2", "create_booking", booking))
			s.end()
		}, want: want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: []string{PatchGhostWrite}}},
		{name: "8.3/one-execution-in-one-process-passes", cfg: Config{Scenario: "F1"}, build: func(s *sess) {
			s.open("s1", true)
			s.f1(s.writeIn("s1", "create_booking", booking))
			s.open("s2", true)
			s.read()
			s.end()
		}, want: want{verdict: report.VerdictPass, total: 100, observations: []string{obsVerifiedNoRetry}}},
	})
}

// TestRepeatAcrossUpstreamProcessesSchema: the observation and the
// sessions' ownUpstream are valid report file content.
func TestRepeatAcrossUpstreamProcessesSchema(t *testing.T) {
	s := newSess()
	s.open("s1", true)
	s.f1(s.writeIn("s1", "create_booking", `{"guest":"Ada"}`))
	s.open("s2", true)
	s.ok(s.writeIn("s2", "create_booking", `{"guest":"Ada"}`))
	s.end()
	file := s.judge(Config{Scenario: "F1"}).AppendFile(nil, report.FileMeta{Status: "finished", ToolClassification: json.RawMessage(`[]`)})
	for _, want := range []string{`"type":"REPEAT_ACROSS_UPSTREAM_PROCESSES"`, `{"id":"s2","transport":"http","ownUpstream":true}`} {
		if !strings.Contains(string(file), want) {
			t.Errorf("report file lacks %s: %s", want, file)
		}
	}
	if errs := newSchemaValidator(t, report.Schema).validate(file); len(errs) != 0 {
		t.Fatalf("valid file rejected: %v", errs)
	}
}
