package judge

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// resendSess builds a session as the relay numbers it: every request
// (pings aside) takes the session's next request number.
type resendSess struct {
	*sess
	reqs    int64
	session string
}

func newResendSess() *resendSess { return &resendSess{sess: newSess(), reqs: 1} } // initialize was 1

// other is a request that is no tools/call (tools/list, resources/read).
func (s *resendSess) other() { s.reqs++ }

// writeMeta sends a write call whose params carry _meta's tool-call id
// (none when id is "").
func (s *resendSess) writeMeta(args, id string) int64 {
	s.next++
	s.reqs++
	params := `{"name":"create_booking","arguments":` + args
	if id != "" {
		params += `,"_meta":{"progressToken":` + strconv.FormatInt(s.next, 10) + `,"` + ToolCallIDMetaKey + `":"` + id + `"}`
	}
	params += `}`
	s.emit(Event{Kind: EventCall, Call: s.next, Tool: "create_booking", Class: classify.Write,
		Arguments: json.RawMessage(args), Params: json.RawMessage(params), Session: s.session, RequestSeq: s.reqs})
	return s.next
}

// readReq is a read tools/call answered at once.
func (s *resendSess) readReq() {
	s.next++
	s.reqs++
	s.emit(Event{Kind: EventCall, Call: s.next, Tool: "get_booking", Class: classify.Read,
		Arguments: json.RawMessage(`{"guest":"Ada"}`), Session: s.session, RequestSeq: s.reqs})
	s.answer(s.next, Executed, "", "")
}

// f1 answers id with F1's timeout, delivered at the transport level
// (--fault-layer http: the connection is dropped) when transport is true.
func (s *resendSess) f1(id int64, transport bool) {
	s.sess.f1(id)
	s.emit(Event{Kind: EventDelivered, Call: id, TransportFault: transport})
}

// TestResentBy: each DUPLICATE_EXECUTION says who re-sent it (behaviour
// §4.9): the tool-call id decides when both calls carry one, else an
// identical request that is the session's next one within 2 s after a
// transport-level fault is the client library's; anything else is
// unknown. The verdict never changes; the client library's duplicate gets
// CLIENT_RETRY instead of a prompt patch.
func TestResentBy(t *testing.T) {
	const keyed = `{"guest":"Ada","date":"2026-11-03","idempotency_key":"k1"}`
	cases := []struct {
		name    string
		build   func(s *resendSess)
		want    string
		patches []string
	}{
		{"identical request right after the dropped connection: client-library", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), true)
			s.wait(30)
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByClientLibrary, []string{PatchClientRetry}},
		{"exactly 2 s after the fault still counts", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), true)
			s.wait(2000)
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByClientLibrary, []string{PatchClientRetry}},
		{"the same key field value is part of the identical params", func(s *resendSess) {
			s.f1(s.writeMeta(keyed, ""), true)
			s.wait(10)
			s.ok(s.writeMeta(keyed, ""))
		}, report.ResentByClientLibrary, []string{PatchClientRetry}},
		{"a new tool-call id is the model's, even right after the dropped connection", func(s *resendSess) {
			s.f1(s.writeMeta(booking, "call_1"), true)
			s.wait(30)
			s.ok(s.writeMeta(booking, "call_2"))
		}, report.ResentByModel, []string{PatchGhostWrite}},
		{"the same tool-call id is the client library's, whatever the layer and the time", func(s *resendSess) {
			s.f1(s.writeMeta(booking, "call_1"), false)
			s.wait(5000)
			s.other()
			s.ok(s.writeMeta(booking, "call_1"))
		}, report.ResentByClientLibrary, []string{PatchClientRetry}},
		{"2001 ms after the fault is too late", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), true)
			s.wait(2001)
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"a tool-layer timeout is no transport fault", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), false)
			s.wait(30)
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"another request between (tools/list)", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), true)
			s.other()
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"a read between", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), true)
			s.readReq()
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"another idempotency key is not the identical request", func(s *resendSess) {
			s.f1(s.writeMeta(keyed, ""), true)
			s.ok(s.writeMeta(strings.Replace(keyed, "k1", "k2", 1), ""))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"another session's request", func(s *resendSess) {
			s.f1(s.writeMeta(booking, ""), true)
			s.session = "s2"
			s.ok(s.writeMeta(booking, ""))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"no request numbers (an old trace)", func(s *resendSess) {
			a := s.write("create_booking", booking)
			s.f1(a, true)
			s.ok(s.write("create_booking", booking))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
		{"the client library's re-send and then the model's: unknown", func(s *resendSess) {
			s.f1(s.writeMeta(booking, "call_1"), true)
			s.ok(s.writeMeta(booking, "call_1"))
			s.ok(s.writeMeta(booking, "call_2"))
		}, report.ResentByUnknown, []string{PatchGhostWrite}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := newResendSess()
			s.session = "s1"
			tc.build(s)
			s.end()
			j := s.judge(Config{Scenario: "F1", KeyFields: canon.ParseKeyFields([]string{"idempotency_key"})})
			assertJudge(t, j, want{verdict: report.VerdictFail, total: 0, violations: []string{violationDuplicate}, patches: tc.patches,
				check: func(t *testing.T, r report.Report, _ report.Score, ps []report.Patch) {
					if got := r.Violations[0].Duplicate.ResentBy; got != tc.want {
						t.Errorf("duplicate.resentBy = %q, want %q", got, tc.want)
					}
					if tc.want != report.ResentByClientLibrary {
						return
					}
					p := ps[0]
					wantTrigger := "The agent's MCP client library re-sent the same write on its own within 2 s after a transport-level fault, and it executed again 1 time(s)."
					if p.Severity != SeverityHigh || p.Count != 1 || p.Trigger != wantTrigger || p.Text != textClientRetry || p.Operation != "op-1" {
						t.Errorf("CLIENT_RETRY patch %+v", p)
					}
					if !strings.Contains(p.Message, "not the model, so a prompt text cannot fix it") {
						t.Errorf("CLIENT_RETRY message %q", p.Message)
					}
					if m := r.Violations[0].Message; !strings.Contains(m, "The agent's MCP client library re-sent the request on its own, not the model (see the CLIENT_RETRY patch).") {
						t.Errorf("violation message %q", m)
					}
					if as := j.AlertsSince(0); len(as) != 1 || as[0].Note != "again after a timeout, re-sent by the MCP client library (CLIENT_RETRY)" {
						t.Errorf("alerts %+v, want one whose note names the client library", as)
					}
				}})
		})
	}
}

// TestResentByReportFile: the report file's duplicate and patches are the
// same bytes as Report and Patches (the cached encoding sees resentBy and
// CLIENT_RETRY), and they validate against the schema.
func TestResentByReportFile(t *testing.T) {
	s := newResendSess()
	s.session = "s1"
	s.f1(s.writeMeta(booking, ""), true)
	s.ok(s.writeMeta(booking, ""))
	s.end()
	j := s.judge(Config{Scenario: "F1"})
	b := j.AppendFile(nil, report.FileMeta{Status: report.StatusFinished})
	var f struct {
		Report  report.Report  `json:"report"`
		Patches []report.Patch `json:"patches"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	if d := f.Report.Violations[0].Duplicate; d == nil || d.ResentBy != report.ResentByClientLibrary {
		t.Fatalf("report file duplicate %+v", d)
	}
	if len(f.Patches) != 1 || f.Patches[0].Type != PatchClientRetry {
		t.Fatalf("report file patches %+v", f.Patches)
	}
	if errs := newSchemaValidator(t, report.Schema).validate(b); len(errs) > 0 {
		t.Errorf("schema: %v", errs)
	}
}

// TestToolCallID: the tool-call id is a non-empty string in params._meta,
// matched by its exact (unescaped) name; the last of repeated members
// counts; anything else is no id.
func TestToolCallID(t *testing.T) {
	for params, want := range map[string]string{
		`{"name":"x","_meta":{"agent-harness/toolCallId":"c1"}}`:                                "c1",
		`{"name":"x","_meta":{"agent-harness\/toolCallId":"c1"}}`:                               "c1",
		`{"_meta":{"agent-harness/toolCallId":"c1"},"_meta":{"agent-harness/toolCallId":"c2"}}`: "c2",
		`{"_meta":{"agent-harness/toolCallId":"c1","agent-harness/toolCallId":"c3"}}`:           "c3",
		`{"_meta":{"agent-harness/toolCallId":7}}`:                                              "",
		`{"_meta":{"agent-harness/toolCallId":""}}`:                                             "",
		`{"_meta":{"Agent-Harness/ToolCallId":"c1"}}`:                                           "",
		`{"_meta":"c1"}`: "",
		`{"name":"x"}`:   "",
		``:               "",
		`[1]`:            "",
	} {
		if got := toolCallID(json.RawMessage(params)); got != want {
			t.Errorf("toolCallID(%s) = %q, want %q", params, got, want)
		}
	}
}

// BenchmarkToolCallID is the per-write cost of reading the tool-call id
// from a typical call's params (the id after the arguments, as SDKs
// write them).
func BenchmarkToolCallID(b *testing.B) {
	params := json.RawMessage(`{"name":"create_booking","arguments":{"guest":"Ada","date":"2026-11-03","amount":129,"idempotency_key":"k-1"},"_meta":{"progressToken":7,"agent-harness/toolCallId":"call_9f2c1e"}}`)
	b.ReportAllocs()
	for b.Loop() {
		if toolCallID(params) == "" {
			b.Fatal("no id")
		}
	}
}
