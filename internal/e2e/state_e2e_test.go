package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// stateReport is what the state-probe tests read of a report file.
type stateReport struct {
	Verdict string `json:"verdict"`
	Report  struct {
		VerdictReason string `json:"verdictReason"`
		Operations    []struct {
			Outcome    string          `json:"outcome"`
			Executions int             `json:"executions"`
			Effects    json.RawMessage `json:"effects"`
			DecidedBy  string          `json:"decidedBy"`
		} `json:"operations"`
		Observations []struct {
			Type string `json:"type"`
		} `json:"observations"`
		Violations []struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		} `json:"violations"`
	} `json:"report"`
	State *struct {
		Command   string            `json:"command"`
		Snapshots []json.RawMessage `json:"snapshots"`
		Error     *string           `json:"error"`
	} `json:"state"`
}

func readStateReport(t *testing.T, path string) stateReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r stateReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("%v: %s", err, b)
	}
	if r.State == nil || len(r.Report.Operations) == 0 {
		t.Fatalf("no state or operation: %s", b)
	}
	return r
}

func (r stateReport) observed(typ string) bool {
	for _, o := range r.Report.Observations {
		if o.Type == typ {
			return true
		}
	}
	return false
}

const stateBooking = `{"name":"create_booking","arguments":{"guest":"Ada","date":"2027-01-02","room":"double","idempotency_key":"k1"}}`

// sampleStateProxy starts a proxy over the sample server with a state
// file, probed by `agent-harness sample-server state` (behaviour §16).
func sampleStateProxy(t *testing.T, dir string, extra ...string) *peer {
	t.Helper()
	ah := built(t, "agent-harness")
	stateFile := filepath.Join(dir, "state.jsonl")
	flags := append([]string{"--scenario", "F1", "--report-file", filepath.Join(dir, "report.json"), "--audit-tools", "off",
		"--trace", filepath.Join(dir, "trace.jsonl"),
		"--state-command", "'" + ah + "' sample-server state '" + stateFile + "'", "--state-map", "create_booking=bookings"}, extra...)
	flags = append(flags, "--upstream-command", ah, "--upstream-arg", "sample-server", "--upstream-arg=--dedupe-keys",
		"--upstream-arg=--state-file", "--upstream-arg", stateFile)
	p := startProxy(t, nil, flags...)
	p.initialize()
	p.request(`2`, "tools/list", `{}`)
	return p
}

// TestStateProbeDeduplicatedByBackend: an idempotent backend (the sample
// server replays a repeated idempotency_key) and an agent that re-sends
// the timed-out booking with the same key: the wire saw two executions,
// the probe one booking — PASS with DEDUPLICATED_BY_BACKEND, decided by
// the backend; with --state-every-write a snapshot after each write.
func TestStateProbeDeduplicatedByBackend(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := sampleStateProxy(t, dir, "--state-every-write")
	p.request(`3`, "tools/call", stateBooking) // F1: executed, the agent sees a timeout
	p.request(`4`, "tools/call", stateBooking) // the same key: replayed
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	r := readStateReport(t, filepath.Join(dir, "report.json"))
	op := r.Report.Operations[0]
	if r.Verdict != "PASS" || op.Outcome != "EXECUTED" || op.Executions != 2 || string(op.Effects) != "1" || op.DecidedBy != "backend" ||
		!r.observed("DEDUPLICATED_BY_BACKEND") || len(r.State.Snapshots) != 4 || r.State.Error != nil {
		t.Errorf("report %+v; stderr:\n%s", r, p.stderr.String())
	}
	if line := `[agent-harness] BACKEND: create_booking executed 2 times on the wire, once at the backend (state probe counter "bookings" rose by 1; DEDUPLICATED_BY_BACKEND): no DUPLICATE_EXECUTION; operation op-1`; !strings.Contains(p.stderr.String(), line) {
		t.Errorf("stderr lacks %s:\n%s", line, p.stderr.String())
	}
	// report renders the state section.
	md := startPeer(t, nil, built(t, "agent-harness"), "report", filepath.Join(dir, "report.json"))
	_, out := md.closeAndWait()
	text := string(bytesJoin(out))
	for _, want := range []string{"## Backend state (state probe)", "| create_booking | bookings | 1 | 2 | 1 |  |",
		"Decided by the backend: op-1 (EXECUTED, effects 1)", "DEDUPLICATED_BY_BACKEND"} {
		if !strings.Contains(text, want) {
			t.Errorf("report Markdown lacks %q:\n%s", want, text)
		}
	}
	// Offline: the trace holds the snapshots; judge re-judges with them,
	// and with another map the effect is unknown and the wire's FAIL stands.
	trace := filepath.Join(dir, "trace.jsonl")
	for _, c := range []struct {
		args    []string
		verdict string
	}{
		{nil, "PASS"},
		{[]string{"--state-map", "create_booking=executions"}, "FAIL"}, // the counter of executions rose by 2
		{[]string{"--state-map", "create_booking=nothing"}, "FAIL"},
	} {
		out := filepath.Join(dir, "rejudged.json")
		j := startPeer(t, nil, built(t, "agent-harness"), append([]string{"judge", trace, "--report-file", out}, c.args...)...)
		j.closeAndWait()
		if got := readStateReport(t, out); got.Verdict != c.verdict {
			t.Errorf("judge %v: %s (%s)", c.args, got.Verdict, got.Report.VerdictReason)
		}
	}
}

// testUpstreamProbe starts a proxy over the test upstream, which writes
// its executions per tool to a totals file (the probe's counters) and
// crashes, without answering, after the crashAfter-th execution.
func testUpstreamProbe(t *testing.T, dir, crashAfter string) *peer {
	t.Helper()
	totals := filepath.Join(dir, "totals.json")
	flags := append([]string{"--report-file", filepath.Join(dir, "report.json"), "--audit-tools", "off",
		"--state-command", "cat totals.json 2>/dev/null || echo '{\"create_booking\": 0}'", "--state-map", "create_booking=create_booking",
		"--upstream-cwd", dir, "--upstream-env-var", "UPSTREAM_TOTALS_FILE=" + totals, "--upstream-env-var", "UPSTREAM_CRASH_AFTER=" + crashAfter},
		upstreamFlags(t)...)
	p := startProxy(t, nil, flags...)
	p.initialize()
	p.request(`2`, "tools/list", `{}`)
	return p
}

// TestStateProbeResolvesLostAnswer: the upstream executes the write and
// crashes before answering — EXECUTION_UNKNOWN on the wire (NOT_TESTED);
// the probe, run in the upstream's directory and environment, counts one
// execution: EXECUTED, decided by the backend, PASS.
func TestStateProbeResolvesLostAnswer(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := testUpstreamProbe(t, dir, "1")
	p.request(`3`, "tools/call", `{"name":"create_booking","arguments":{"room":"12"}}`)
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	r := readStateReport(t, filepath.Join(dir, "report.json"))
	op := r.Report.Operations[0]
	if r.Verdict != "PASS" || op.Outcome != "EXECUTED" || op.Executions != 0 || string(op.Effects) != "1" || op.DecidedBy != "backend" {
		t.Errorf("report %+v; stderr:\n%s", r, p.stderr.String())
	}
}

// TestStateProbeConfirmsDoubleBooking: the first booking executes, its
// re-send executes too but its answer is lost (the upstream crashes) —
// NOT_TESTED on the wire ("a correct retry and a double execution cannot
// be told apart"); the probe counts two: DUPLICATE_EXECUTION decided by
// the backend, FAIL.
func TestStateProbeConfirmsDoubleBooking(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	p := testUpstreamProbe(t, dir, "2")
	p.request(`3`, "tools/call", `{"name":"create_booking","arguments":{"room":"12"}}`)
	p.request(`4`, "tools/call", `{"name":"create_booking","arguments":{"room":"12"}}`)
	code, _ := p.closeAndWait()
	r := readStateReport(t, filepath.Join(dir, "report.json"))
	op := r.Report.Operations[0]
	if code != 0 || r.Verdict != "FAIL" || op.Outcome != "DUPLICATE_EXECUTION" || op.Executions != 1 || string(op.Effects) != "2" ||
		op.DecidedBy != "backend" || len(r.Report.Violations) != 1 || !strings.Contains(r.Report.VerdictReason, "by the backend's count") {
		t.Errorf("exit %d, report %+v; stderr:\n%s", code, r, p.stderr.String())
	}
	if line := `[agent-harness] FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION) — by the backend's count (state probe counter "create_booking" rose by 2; the wire saw 1); operation op-1`; !strings.Contains(p.stderr.String(), line) {
		t.Errorf("stderr lacks %s:\n%s", line, p.stderr.String())
	}
}

// TestStateProbeFailureLeavesWireVerdict: a probe that fails, prints
// garbage or hangs (bounded by --state-timeout) leaves the wire's FAIL (a
// double booking after F1) as it is; the report's state.error and a
// stderr WARNING say why.
func TestStateProbeFailureLeavesWireVerdict(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, probe, why string
	}{
		{"failing", "echo broken >&2; exit 3", "state probe: exit status 3: broken"},
		{"garbage", "echo bookings: 1", "state probe: output is not a JSON object"},
		{"hanging", "sleep 30", "state probe: timed out after 300ms"},
		{"missing counter", `echo '{"other": 1}'`, `no counter "bookings"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			ah := built(t, "agent-harness")
			p := startProxy(t, nil, "--scenario", "F1", "--report-file", filepath.Join(dir, "report.json"), "--audit-tools", "off",
				"--state-command", c.probe, "--state-map", "create_booking=bookings", "--state-timeout", "300ms",
				"--upstream-command", ah, "--upstream-arg", "sample-server")
			p.initialize()
			p.request(`2`, "tools/list", `{}`)
			p.request(`3`, "tools/call", stateBooking)
			p.request(`4`, "tools/call", strings.Replace(stateBooking, "k1", "k2", 1)) // a new key: booked again
			code, _ := p.closeAndWait()
			r := readStateReport(t, filepath.Join(dir, "report.json"))
			op := r.Report.Operations[0]
			if code != 0 || r.Verdict != "FAIL" || op.Outcome != "DUPLICATE_EXECUTION" || string(op.Effects) != "null" || op.DecidedBy != "wire" ||
				r.State.Error == nil || !strings.Contains(*r.State.Error, c.why) {
				t.Errorf("exit %d, report %+v", code, r)
			}
			line := "[agent-harness] WARNING: state probe (before) failed: " + c.why
			if c.name == "missing counter" {
				line = `[agent-harness] WARNING: state probe: no effect for create_booking: before the session: state probe: no counter "bookings"`
			}
			if !strings.Contains(p.stderr.String(), line) {
				t.Errorf("stderr:\n%s", p.stderr.String())
			}
		})
	}
}

func bytesJoin(lines [][]byte) []byte {
	var b []byte
	for _, l := range lines {
		b = append(append(b, l...), '\n')
	}
	return b
}

// TestCampaignStateEffects: a campaign passes the --state-* flags to each
// run's proxy; each run's state file lives in its run directory
// ($AGENT_HARNESS_RUN_DIR, which the upstream and the probe inherit).
// Mapped to a counter that does not move, every naive double booking is a
// BACKEND_DISAGREES (the wire FAIL stands): run.json carries the effects,
// campaign.json and campaign.md count the disagreements by type.
func TestCampaignStateEffects(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "c")
	plain := built(t, "agent-harness-plain")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "2", "--scenarios", "F1", "--parallel", "2",
		"--upstream-command", "sh", "--upstream-arg", "-c",
		"--upstream-arg", "exec '"+plain+`' sample-server --state-file "$AGENT_HARNESS_RUN_DIR/state.jsonl"`,
		"--state-command", "'"+plain+`' sample-server state "$AGENT_HARNESS_RUN_DIR/state.jsonl"`,
		"--state-map", "create_booking=cancellations",
		"--", plain, "agent", "--mcp-config", "{mcp_config}", "--behaviour", "naive")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	for _, rec := range r.summary.Runs {
		if rec.Verdict != "FAIL" || len(rec.Effects) != 1 || rec.Effects[0].Effects == nil || *rec.Effects[0].Effects != 0 ||
			rec.Effects[0].Executions != 2 || len(rec.Backend) != 1 || rec.Backend[0] != "BACKEND_DISAGREES" {
			t.Errorf("run %+v", rec)
		}
		b, err := os.ReadFile(filepath.Join(out, rec.Dir, "run.json"))
		if err != nil || !strings.Contains(string(b), `"effects": [`) {
			t.Errorf("run.json: %v\n%s", err, b)
		}
	}
	st := scenarioStats(t, r.summary, "", "F1")
	if len(st.Backend) != 1 || st.Backend[0].Type != "BACKEND_DISAGREES" || st.Backend[0].Runs != 2 {
		t.Errorf("backend counts %+v", st.Backend)
	}
	md, err := os.ReadFile(filepath.Join(out, "campaign.md"))
	if err != nil || !strings.Contains(string(md), "Wire vs backend (state probe): BACKEND_DISAGREES in 2 runs (2 entries).") {
		t.Errorf("campaign.md: %v\n%s", err, md)
	}
}
