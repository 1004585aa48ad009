package main

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// runRed1 is runFake with a ping answered before the calls, so the
// upstream's keep-alive connections are warm (the tools/call goes over a
// reused one, as in any longer session).
func runRed1(t *testing.T, f *fakeMCP, calls int, flags ...string) ([][]byte, upstreamReport, *peer) {
	t.Helper()
	report := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, nil, append([]string{"--upstream-url", f.url(), "--audit-tools", "off", "--report-file", report}, flags...)...)
	p.initialize()
	requestWithin(t, p, 20*time.Second, "2", "ping", "{}")
	var answers [][]byte
	for i := range calls {
		answers = append(answers, requestWithin(t, p, 20*time.Second, fmt.Sprint(10+i), "tools/call", bookingCall))
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d\n%s", code, p.stderr.String())
	}
	r, _ := readUpstreamReport(t, report)
	return answers, r, p
}

// TestRed1IdempotencyKeyReplayPass: the upstream reads the agent's
// create_booking, writes it, and its connection drops before the answer
// (a crash, a keep-alive race). With an Idempotency-Key header on the
// upstream requests (--upstream-header here; an HTTP agent's own
// Idempotency-Key header reaches the upstream the same way), net/http
// re-sends the POST by itself on a new connection: the upstream writes the
// booking a second time and answers "booked". The agent sent one call, the
// judge saw one attempt with one executed answer: PASS, one execution —
// while the upstream executed it twice. SPEC §17.5 ("never replays a
// write behind the judge's back"): expected exactly one POST per
// tools/call; a connection lost before the answer is an unknown outcome
// (not PASS).
func TestRed1IdempotencyKeyReplayPass(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	f := newFakeMCP(t)
	f.onCall = func(n int, _ string, w http.ResponseWriter, _ *http.Request) bool {
		if n > 1 {
			return false // executes and answers "booked"
		}
		f.executed.Add(1) // executes; the connection drops before the answer
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			conn.Close()
		}
		return true
	}
	answers, r, p := runRed1(t, f, 1, "--upstream-header", "Idempotency-Key: booking-9")
	t.Logf("answer: %s", answers[0])
	ops := r.Report.Operations
	if n := f.calls.Load(); n != 1 {
		t.Errorf("the upstream got the agent's one tools/call %d times and executed it %d times", n, f.executed.Load())
	}
	if r.Verdict == "PASS" && f.executed.Load() > 1 {
		t.Errorf("wrong PASS: verdict %s, operations %+v, the upstream executed %d times", r.Verdict, ops, f.executed.Load())
	}
	if strings.Contains(string(answers[0]), "booked") && f.executed.Load() > 1 {
		t.Errorf("the agent got an executed answer of the second execution: %s\nstderr:\n%s", answers[0], p.stderr.String())
	}
}
