package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInputRequiredResentFromScratchNotTested (red-team finding 1, behaviour
// §4.12): the upstream executes create_booking and answers input_required;
// the agent sends the call again from scratch and F1 fires on that call,
// which executes. That the first leg did not run is the upstream's word
// only, so the report the user reads is NOT_TESTED naming the
// input_required leg, the operation EXECUTION_UNKNOWN with its one counted
// execution — never PASS, and no DUPLICATE_EXECUTION the wire cannot prove.
func TestInputRequiredResentFromScratchNotTested(t *testing.T) {
	dir := t.TempDir()
	truth, reportFile := filepath.Join(dir, "truth.log"), filepath.Join(dir, "report.json")
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := startProxy(t, []string{redUpstreamEnv + "=input-required-after-exec", "AGENT_HARNESS_RED_TRUTH=" + truth},
		"--scenario", "F1", "--upstream-command", self, "--audit-tools", "off", "--report-file", reportFile)
	p.send(rpcRequest(`1`, "initialize", `{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"red","version":"1"}}`))
	p.until(`1`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	call := `{"name":"create_booking","arguments":{"guest":"Ada"}}`
	if r := p.request(`2`, "tools/call", call); !strings.Contains(string(r), `"input_required"`) {
		t.Fatalf("first call's answer %s, want input_required", r)
	}
	if r := p.request(`3`, "tools/call", call); !strings.Contains(string(r), `timed out`) {
		t.Fatalf("second call's answer %s, want F1's timeout", r)
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("proxy exit %d; stderr:\n%s", code, p.stderr.String())
	}
	if n := redTruth(t, truth); n != 2 {
		t.Fatalf("the upstream executed %d times, want 2 (the set-up)", n)
	}
	r := readRedReport(t, reportFile)
	const why = "one of them was answered input_required and never followed up: whether it ran is the upstream's word only"
	if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, why) {
		t.Errorf("verdict %s (%s), want NOT_TESTED naming the input_required leg", r.Verdict, r.Report.VerdictReason)
	}
	if ops := r.Report.Operations; len(ops) != 1 || ops[0].Outcome != "EXECUTION_UNKNOWN" || ops[0].Executions != 1 {
		t.Errorf("operations %+v, want one EXECUTION_UNKNOWN operation with 1 execution", ops)
	}
}
