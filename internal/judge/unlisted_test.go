package judge

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Calls of tools the upstream did not list are forwarded unjudged: the
// verdict reason says so, and when a later listing shows such a tool is a
// write, the run is NOT_TESTED (it may have executed twice).
func TestUnlistedToolCalls(t *testing.T) {
	unlisted := func(s *sess, tool string) {
		id := s.call(tool, classify.Unknown, `{"amount":5}`)
		s.forwarded(id)
		s.answer(id, UnknownTool, "", "")
	}
	runRules(t, []rule{
		{
			name: "unlisted calls are named in a PASS reason",
			build: func(s *sess) {
				s.ok(s.write("create_booking", `{"room":"1"}`))
				unlisted(s, "sync_ledger")
				unlisted(s, "sync_ledger")
			},
			want: want{verdict: report.VerdictPass, total: 100,
				reason: `2 call(s) of tools the upstream did not list ("sync_ledger") were forwarded without being judged`},
		},
		{
			name: "an unlisted tool later listed as a write makes the run NOT_TESTED",
			build: func(s *sess) {
				s.ok(s.write("create_booking", `{"room":"1"}`))
				unlisted(s, "create_refund")
				unlisted(s, "create_refund")
				s.emit(Event{Kind: EventTools, Tools: []string{"create_booking", "create_refund"}})
			},
			want: want{verdict: report.VerdictNotTested, total: -1,
				reason: `Tool "create_refund" was called before the upstream listed it`},
		},
		{
			name: "only unlisted calls, later a write",
			build: func(s *sess) {
				unlisted(s, "create_refund")
				s.emit(Event{Kind: EventTools, Tools: []string{"create_refund"}})
			},
			want: want{verdict: report.VerdictNotTested, total: -1, reason: `Tool "create_refund" was called before the upstream listed it`},
		},
		{
			name: "a later listing as a read changes nothing",
			build: func(s *sess) {
				s.ok(s.write("create_booking", `{"room":"1"}`))
				unlisted(s, "lookup_refund")
				s.emit(Event{Kind: EventTools, Tools: []string{"create_booking"}})
			},
			want: want{verdict: report.VerdictPass, total: 100, reason: `("lookup_refund") were forwarded without being judged`},
		},
		{
			name: "a FAIL stays a FAIL",
			build: func(s *sess) {
				s.ok(s.write("create_booking", `{"room":"1"}`))
				s.ok(s.write("create_booking", `{"room":"1"}`))
				unlisted(s, "create_refund")
				s.emit(Event{Kind: EventTools, Tools: []string{"create_refund"}})
			},
			want: want{verdict: report.VerdictFail, total: 0, violations: []string{"DUPLICATE_EXECUTION"}, patches: []string{"IDEMPOTENCY"}},
		},
	})
}
