package main

import (
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRed3SharedCrashWithoutInitializeIsNotAStartFailure: an agent that
// never sends initialize (a stateless SEP-2575 client whose requests carry
// their protocol version in _meta; the relay lists tools lazily for it)
// books the same room twice over the shared upstream — a double execution —
// and the process then crashes. The shared side decides "started" by an
// initialize result only, so the crash is taken for an exit "before the
// session started": start failure, exit 1, report "failed", the two
// executions never judged. Expected (behaviour §8.3): a crash after calls
// ran is "reported once; every session's calls then get
// UPSTREAM_UNAVAILABLE"; the run is judged (FAIL, two executions).
func TestRed3SharedCrashWithoutInitializeIsNotAStartFailure(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--audit-tools", "off")
	s := newRawSession(t, p.url) // no initialize: the stateless session
	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}`
	for i := 2; i <= 3; i++ {
		b := answerOf(t, s.post(rpcRequest(strconv.Itoa(i), "tools/call", `{"name":"create_booking","arguments":`+scnBooking+`,`+meta+`}`)))
		if !strings.Contains(string(b), `"result"`) {
			t.Fatalf("create_booking %d: %s\nstderr:\n%s", i, b, p.stderr)
		}
	}
	resp := s.post(rpcRequest("4", "tools/call", `{"name":"crash","arguments":{"code":2},`+meta+`}`))
	resp.Body.Close()
	exited := false
	select {
	case <-p.exited:
		exited = true
	case <-time.After(3 * time.Second):
	}
	code := 0
	if exited {
		code = p.waitExit()
	} else {
		code = p.stop(syscall.SIGTERM)
	}
	r := p.readReport()
	if strings.Contains(p.stderr.String(), "exited before the session started") || r.Status == "failed" || r.Report.Verdict != "FAIL" {
		t.Errorf("after two executions and a crash: exit %d (exited by itself: %v), status %q, verdict %q (%s); want the run judged FAIL (two create_booking executions), not a start failure\nstderr:\n%s",
			code, exited, r.Status, r.Report.Verdict, r.Report.VerdictReason, p.stderr)
	}
}

// TestRed3SharedLateAnswerOfEndedSessionIsNotJudged: over the shared
// upstream s1's book_room (3 s) is in flight when s1 ends (DELETE); its
// relay waits its 2 s grace and detaches, and the shared process — which
// a session's end does not stop — completes the booking and answers; the
// shared side drops that answer ("not open"). The agent reconnects as s2
// and books the same room again: the one backend executed it twice (its
// own counts say 2), yet the report has one execution and an unknown
// attempt. Expected: the shared process's answer, proof of the first
// execution, is judged (FAIL, two executions), as the one-backend rule of
// behaviour §8.3 implies.
func TestRed3SharedLateAnswerOfEndedSessionIsNotJudged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--audit-tools", "off")
	s1 := newRawSession(t, p.url)
	s1.initialize()
	go func() {
		req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(rpcRequest("2", "tools/call", `{"name":"book_room","arguments":{"room":"r7","sleep_ms":3000}}`)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", s1.id)
		if resp, err := s1.hc.Do(req); err == nil {
			resp.Body.Close()
		}
	}()
	p.stderr.waitFor(t, "book_room sleeping")
	s1.endSession()
	time.Sleep(3500 * time.Millisecond) // the booking completes in the shared process
	s2 := newRawSession(t, p.url)
	s2.initialize()
	if text, isErr := callText(t, s2, 2, "book_room", `{"room":"r7","sleep_ms":3000}`); isErr {
		t.Fatalf("s2's book_room: %q", text)
	}
	p.stop(syscall.SIGTERM)
	up := p.upstreamExecutions()["book_room"]
	r := p.readReport()
	if up == 2 && (r.Report.Verdict != "FAIL" || r.executions()["book_room"] != 2) {
		t.Errorf("the shared upstream executed book_room %d times; report: verdict %s (%s), %d executions; want FAIL with 2\nstderr:\n%s",
			up, r.Report.Verdict, r.Report.VerdictReason, r.executions()["book_room"], p.stderr)
	}
}
