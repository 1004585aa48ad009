package main

import (
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
