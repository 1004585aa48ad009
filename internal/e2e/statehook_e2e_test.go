package e2e

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// guestProbe is a state probe that counts the sample server's bookings
// per guest from its state file: {"bookings:Ada": N, "bookings:Bob": M}
// (a replayed idempotency key made no booking).
func guestProbe(stateFile string) string {
	return fmt.Sprintf(`f='%s'; c() { if [ -f "$f" ]; then grep '"tool":"create_booking"' "$f" | grep -v '"replayed":true' | grep -c "\"guest\":\"$1\""; else echo 0; fi; }; `+
		`printf '{"bookings:Ada": %%s, "bookings:Bob": %%s}\n' "$(c Ada)" "$(c Bob)"`, stateFile)
}

const (
	adaBooking = `{"name":"create_booking","arguments":{"guest":"Ada","date":"2027-01-02","room":"double","idempotency_key":"k1"}}`
	bobBooking = `{"name":"create_booking","arguments":{"guest":"Bob","date":"2027-01-02","room":"double","idempotency_key":"k2"}}`
)

// guestStateProxy runs the sample server (an idempotent backend: a
// repeated idempotency_key returns the first booking) under F1 with the
// per-guest probe and the given extra flags; Ada's booking times out (F1,
// executed) and is re-sent — with its key when dedupe, else without one
// (a real double booking) — and Bob's runs once. It returns the report and the proxy's stderr.
func guestStateProxy(t *testing.T, dir string, dedupe bool, extra ...string) (stateReport, string) {
	t.Helper()
	ah := built(t, "agent-harness")
	stateFile := filepath.Join(dir, "state.jsonl")
	flags := append([]string{"--scenario", "F1", "--report-file", filepath.Join(dir, "report.json"), "--audit-tools", "off",
		"--trace", filepath.Join(dir, "trace.jsonl"), "--state-command", guestProbe(stateFile)}, extra...)
	flags = append(flags, "--upstream-command", ah, "--upstream-arg", "sample-server", "--upstream-arg=--state-file", "--upstream-arg", stateFile)
	flags = append(flags, "--upstream-arg=--dedupe-keys")
	ada := adaBooking
	if !dedupe {
		ada = strings.Replace(ada, `,"idempotency_key":"k1"`, "", 1)
	}
	p := startProxy(t, nil, flags...)
	p.initialize()
	p.request(`2`, "tools/list", `{}`)
	p.request(`3`, "tools/call", ada) // F1: executed, the agent sees a timeout
	p.request(`4`, "tools/call", ada) // re-sent
	p.request(`5`, "tools/call", bobBooking)
	if code, _ := p.closeAndWait(); code != 0 && code != 1 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	return readStateReport(t, filepath.Join(dir, "report.json")), p.stderr.String()
}

func (r stateReport) effects() string {
	var s []string
	for _, op := range r.Report.Operations {
		s = append(s, string(op.Effects)+"/"+op.DecidedBy)
	}
	return strings.Join(s, " ")
}

// TestStatePluginAttributes: two create_booking operations (Ada's re-sent
// after F1, Bob's once) are two operations of one tool, so a counter
// cannot attribute its effect (behaviour §16.3); the bookingstate plugin
// attributes the per-guest counters, and each operation is judged by the
// backend: an idempotent backend → DEDUPLICATED_BY_BACKEND, PASS; a real
// double booking → FAIL, the backend's 2 beside the wire's 2. The trace
// of a run without the plugin re-judged with it (`judge --plugin`) gives
// the same PASS.
func TestStatePluginAttributes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	plugin := proxyPluginFlags(t, "./plugins/bookingstate")

	dir := t.TempDir()
	r, stderr := guestStateProxy(t, dir, true, plugin...)
	if r.Verdict != "PASS" || r.effects() != "1/backend 1/wire" || !r.observed("DEDUPLICATED_BY_BACKEND") || r.State.Error != nil {
		t.Errorf("dedupe: %s (%s), effects %s; stderr:\n%s", r.Verdict, r.Report.VerdictReason, r.effects(), stderr)
	}
	if line := `BACKEND: create_booking executed 2 times on the wire, once at the backend (effect attributed by state plugin "bookingstate" rose by 1; DEDUPLICATED_BY_BACKEND)`; !strings.Contains(stderr, line) {
		t.Errorf("stderr lacks %s:\n%s", line, stderr)
	}

	dir = t.TempDir()
	r, stderr = guestStateProxy(t, dir, false, plugin...)
	if r.Verdict != "FAIL" || r.effects() != "2/wire 1/wire" || len(r.Report.Violations) != 1 || r.Report.Violations[0].Type != "DUPLICATE_EXECUTION" {
		t.Errorf("double: %s (%s), effects %s; stderr:\n%s", r.Verdict, r.Report.VerdictReason, r.effects(), stderr)
	}

	// Without the plugin: two operations of the tool, no attribution, the
	// wire's FAIL; re-judged offline with the plugin: PASS.
	dir = t.TempDir()
	r, stderr = guestStateProxy(t, dir, true)
	if r.Verdict != "FAIL" || r.effects() != "null/wire null/wire" {
		t.Errorf("no plugin: %s (%s), effects %s; stderr:\n%s", r.Verdict, r.Report.VerdictReason, r.effects(), stderr)
	}
	out := filepath.Join(dir, "rejudged.json")
	j := startPeer(t, nil, built(t, "agent-harness"), append([]string{"judge", filepath.Join(dir, "trace.jsonl"), "--report-file", out}, plugin...)...)
	j.closeAndWait()
	if got := readStateReport(t, out); got.Verdict != "PASS" || got.effects() != "1/backend 1/wire" {
		t.Errorf("judge --plugin: %s (%s), effects %s; stderr:\n%s", got.Verdict, got.Report.VerdictReason, got.effects(), j.stderr.String())
	}
}

// TestStatePluginHostile: a state plugin that loops, exhausts its memory,
// panics or answers outside the interface is a probe failure for every
// operation: the wire's FAIL stands, the reason is in the state object
// and on stderr, and the plugin is in pluginFailures.
func TestStatePluginHostile(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	plugin := append(proxyPluginFlags(t, "./internal/plugin/testdata/hostilestate"), "--plugin-timeout", "200ms")
	for _, do := range []struct {
		do, detail string
		extra      []string
	}{
		{"loop", "deadline of 200ms exceeded", nil}, {"bomb", "ah_state", []string{"--plugin-memory=32"}}, {"panic", "hostile panic", nil},
		{"unknown-id", `"op-99", which was not asked about`, nil}, {"huge", "outside ±2^53", nil},
	} {
		t.Run(do.do, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			r, stderr := guestStateProxy(t, dir, true, slices.Concat(plugin, do.extra, []string{"--plugin-config", `hostilestate="` + do.do + `"`})...)
			if r.Verdict != "FAIL" || r.effects() != "null/wire null/wire" || r.State.Error == nil ||
				!strings.Contains(*r.State.Error, "state plugin hostilestate failed, the wire judgement stands for every operation") ||
				!strings.Contains(*r.State.Error, do.detail) {
				t.Errorf("%s (%s), effects %s, state error %v; stderr:\n%s", r.Verdict, r.Report.VerdictReason, r.effects(), r.State.Error, stderr)
			}
			if line := "[agent-harness] plugin hostilestate failed: state: "; !strings.Contains(stderr, line) {
				t.Errorf("stderr lacks %s:\n%s", line, stderr)
			}
		})
	}
}
