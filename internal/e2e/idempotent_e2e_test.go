package e2e

// End-to-end tests of idempotent tools and namespaced names (behaviour §4.8,
// §11.3): the built binary in front of the test upstream listing
// set_room_status (idempotentHint: true), billing/charge-card and
// crm.getLead (-idempotent-tools).

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// idemReport is the part of the report file these tests look at.
type idemReport struct {
	Verdict string `json:"verdict"`
	Report  struct {
		VerdictReason string `json:"verdictReason"`
		Operations    []struct {
			Tool       string `json:"tool"`
			Executions int    `json:"executions"`
			Outcome    string `json:"outcome"`
		} `json:"operations"`
		Violations []struct {
			Type string `json:"type"`
			Tool string `json:"tool"`
		} `json:"violations"`
		Observations []struct {
			Type       string `json:"type"`
			Tool       string `json:"tool"`
			Executions int    `json:"executions"`
		} `json:"observations"`
	} `json:"report"`
	ToolClassification []struct {
		Name       string `json:"name"`
		Class      string `json:"class"`
		Idempotent *bool  `json:"idempotent"`
	} `json:"toolClassification"`
}

func (p *stdioProxy) idemReport() idemReport {
	p.t.Helper()
	b, err := os.ReadFile(p.report)
	if err != nil {
		p.t.Fatal(err)
	}
	var r idemReport
	if err := json.Unmarshal(b, &r); err != nil {
		p.t.Fatalf("report file does not parse: %v\n%s", err, b)
	}
	return r
}

func (r idemReport) observation(typ, tool string) (executions int, ok bool) {
	for _, o := range r.Report.Observations {
		if o.Type == typ && o.Tool == tool {
			return o.Executions, true
		}
	}
	return 0, false
}

const (
	roomStatus = `{"room":"12","status":"clean"}`
	charge     = `{"card":"4242","amount":129}`
)

// TestIdempotentE2EF1FiresAfterIdempotentWrites: the startup table shows
// write (idempotent) and the namespaced names classified; F1 passes over
// two idempotent writes and fires on the first non-idempotent one; the
// repeat is IDEMPOTENT_REPEAT and the run PASSes.
func TestIdempotentE2EF1FiresAfterIdempotentWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := startSession(t, "--upstream-arg=-idempotent-tools", "--scenario", "F1", "--audit-tools", "off")
	for _, line := range []string{
		"[agent-harness]   write (idempotent) set_room_status  (annotation readOnlyHint=false; idempotent: annotation idempotentHint=true)",
		"[agent-harness]   write        billing/charge-card  (default write pattern)",
		"[agent-harness]   read         crm.getLead  (read prefix)",
	} {
		if got := p.stderr.waitFor(t, strings.TrimPrefix(line, "[agent-harness]   ")); got != line {
			t.Errorf("startup line %q, want %q", got, line)
		}
	}
	for i := 0; i < 2; i++ {
		if r := p.call("set_room_status", roomStatus); r.IsError || r.text() != "set_room_status done" {
			t.Fatalf("idempotent write %d got %+v, want the upstream's answer (no fault)", i+1, r)
		}
	}
	if r := p.call("billing/charge-card", charge); !r.IsError || r.text() != timeoutText {
		t.Fatalf("first non-idempotent write got %+v, want the F1 timeout", r)
	}
	p.call("crm.getLead", `{"id":"l1"}`)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	r := p.idemReport()
	if r.Verdict != "PASS" {
		t.Errorf("verdict %s (%s), want PASS", r.Verdict, r.Report.VerdictReason)
	}
	if n, ok := r.observation("IDEMPOTENT_REPEAT", "set_room_status"); !ok || n != 2 {
		t.Errorf("IDEMPOTENT_REPEAT of set_room_status: executions %d (found %t), want 2; report %+v", n, ok, r.Report)
	}
	if _, ok := r.observation("VERIFIED_NO_RETRY", "billing/charge-card"); !ok {
		t.Errorf("no VERIFIED_NO_RETRY for the ghost write: %+v", r.Report.Observations)
	}
	if len(r.Report.Violations) != 0 {
		t.Errorf("violations %+v, want none", r.Report.Violations)
	}
	for _, e := range r.ToolClassification {
		want := e.Name == "set_room_status"
		if got := e.Idempotent != nil && *e.Idempotent; got != want {
			t.Errorf("toolClassification %s: idempotent %v, want %t", e.Name, e.Idempotent, want)
		}
	}
}

// TestIdempotentE2EOnlyIdempotentWrites: a run whose writes were all
// idempotent never fired the scenario: NOT_TESTED, and the reason says so.
func TestIdempotentE2EOnlyIdempotentWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := startSession(t, "--upstream-arg=-idempotent-tools", "--scenario", "F1", "--audit-tools", "off")
	p.call("set_room_status", roomStatus)
	p.call("set_room_status", roomStatus)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	r := p.idemReport()
	const want = "Scenario F1 never fired: all 2 write call(s) were of idempotent tools, and scenarios fire only on writes that are not idempotent"
	if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, want) {
		t.Errorf("verdict %s (%s), want NOT_TESTED containing %q", r.Verdict, r.Report.VerdictReason, want)
	}
}

// TestIdempotentE2EIgnoreHint: with --ignore-idempotent-hint the annotated
// tool is an ordinary write, F1 fires on it and its repeat is a
// DUPLICATE_EXECUTION FAIL; an --idempotent-tools glob still makes
// billing/charge-card idempotent.
func TestIdempotentE2EIgnoreHint(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := startSession(t, "--upstream-arg=-idempotent-tools", "--scenario", "F1", "--audit-tools", "off",
		"--ignore-idempotent-hint", "--idempotent-tools", "billing/*")
	for _, line := range []string{
		"[agent-harness]   write        set_room_status  (annotation readOnlyHint=false)",
		"[agent-harness]   write (idempotent) billing/charge-card  (default write pattern; idempotent: --idempotent-tools glob billing/*)",
	} {
		if got := p.stderr.waitFor(t, strings.TrimPrefix(line, "[agent-harness]   ")); got != line {
			t.Errorf("startup line %q, want %q", got, line)
		}
	}
	p.call("billing/charge-card", charge)
	p.call("billing/charge-card", charge)
	if r := p.call("set_room_status", roomStatus); r.text() != timeoutText {
		t.Fatalf("set_room_status got %+v, want the F1 timeout", r)
	}
	p.call("set_room_status", roomStatus)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	r := p.idemReport()
	if r.Verdict != "FAIL" || len(r.Report.Violations) != 1 ||
		r.Report.Violations[0].Type != "DUPLICATE_EXECUTION" || r.Report.Violations[0].Tool != "set_room_status" {
		t.Errorf("verdict %s, violations %+v; want FAIL with DUPLICATE_EXECUTION of set_room_status", r.Verdict, r.Report.Violations)
	}
	if n, ok := r.observation("IDEMPOTENT_REPEAT", "billing/charge-card"); !ok || n != 2 {
		t.Errorf("IDEMPOTENT_REPEAT of billing/charge-card: executions %d (found %t), want 2", n, ok)
	}
}
