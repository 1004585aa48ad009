package e2e

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestPluginDatesReportShowsAttempts: under F1 the agent re-sends the
// booking with the date in another notation and the dates plugin joins the
// two calls (issue 19 item 10). The run is FAIL, and the report answers
// "what ran twice": the operation shows the first attempt's arguments,
// attemptLog[1] the re-send's own arguments and joinedBy names the dates
// plugin's equiv_key hook; the rendered report says so; at start-up one
// stderr line says which plugin was loaded, with its hooks and file
// (behaviour §5.4, §12.3).
func TestPluginDatesReportShowsAttempts(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	flags := proxyPluginFlags(t, "./plugins/dates")
	wasm := flags[1]
	p := startSession(t, append(append([]string{"--scenario", "F1", "--audit-tools", "off"}, flags...), pluginTimeout)...)
	if got := p.call("create_booking", `{"room":"12","date":"2026-11-03"}`); got.text() != timeoutText {
		t.Fatalf("first write: %+v, want the F1 timeout", got)
	}
	if got := p.call("create_booking", `{"room":"12","date":"03.11.2026"}`); got.IsError {
		t.Fatalf("re-send: %+v, want the upstream's answer", got)
	}
	r := p.finishReport()
	// Every stderr line is in once the proxy exited.
	if want := "[agent-harness] plugin loaded: dates 0.1.0, hooks equiv_key; file " + wasm; !slices.Contains(strings.Split(p.stderr.String(), "\n"), want) {
		t.Errorf("no start-up line %q; stderr:\n%s", want, p.stderr)
	}
	if r.Verdict != "FAIL" || len(r.Report.Operations) != 1 {
		t.Fatalf("verdict %s with %d operations, want FAIL with one", r.Verdict, len(r.Report.Operations))
	}
	raw, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Report struct {
			Operations []struct {
				Arguments  json.RawMessage `json:"arguments"`
				AttemptLog []struct {
					Outcome   string          `json:"outcome"`
					Fault     string          `json:"fault"`
					Arguments json.RawMessage `json:"arguments"`
					JoinedBy  json.RawMessage `json:"joinedBy"`
				} `json:"attemptLog"`
			} `json:"operations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	op := f.Report.Operations[0]
	if string(op.Arguments) != `{"room":"12","date":"2026-11-03"}` {
		t.Errorf("operation arguments %s, want the first attempt's", op.Arguments)
	}
	if len(op.AttemptLog) != 2 {
		t.Fatalf("attemptLog %+v, want two attempts", op.AttemptLog)
	}
	if a := op.AttemptLog[0]; a.Outcome != "executed" || a.Fault != "timeout" || a.Arguments != nil || a.JoinedBy != nil {
		t.Errorf("first attempt %+v, want the executed ghost write without own arguments or joinedBy", a)
	}
	a := op.AttemptLog[1]
	if a.Outcome != "executed" || string(a.Arguments) != `{"room":"12","date":"03.11.2026"}` || string(a.JoinedBy) != `{"rule":"equiv_key","plugin":"dates"}` {
		t.Errorf("re-send %+v (arguments %s, joinedBy %s), want executed with its own arguments joined by dates' equiv_key", a, a.Arguments, a.JoinedBy)
	}
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "report", p.report)
	want := "executed (arguments `{\"room\":\"12\",\"date\":\"03.11.2026\"}`, joined by plugin dates (equiv_key))"
	if !strings.Contains(stdout, want) {
		t.Errorf("rendered report (exit %d, stderr %q) lacks %q:\n%s", code, stderr, want, stdout)
	}
}
