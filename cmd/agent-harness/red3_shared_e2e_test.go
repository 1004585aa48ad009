package main

import (
	"net/http"
	"strings"
	"syscall"
	"testing"
	"time"
)

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
