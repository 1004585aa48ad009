package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// red2CaseConflictAgent (sh and curl over --agent-transport http) books
// once (F1 fires on it), then books another guest with two argument member
// names that differ only in letter case. The member names are the agent's
// own text: raw HTML and a Markdown link.
const red2CaseConflictAgent = `url=$AGENT_HARNESS_MCP_URL
post() { curl -s -D "$AGENT_HARNESS_RUN_DIR/h" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' ${sid:+-H "Mcp-Session-Id: $sid"} ${sid:+-H 'MCP-Protocol-Version: 2025-06-18'} -d "$1" "$url"; echo; }
post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
sid=$(tr -d '\r' < "$AGENT_HARNESS_RUN_DIR/h" | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p')
post '{"jsonrpc":"2.0","method":"notifications/initialized"}'
post '{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"Ada","date":"2026-11-03","room":"double","idempotency_key":"k1"}}}'
post '{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"Bob","date":"2027-01-09","room":"single","idempotency_key":"k9","<img src=x onerror=alert(1)>[PASS](http://x)":1,"<IMG src=x onerror=alert(1)>[PASS](http://x)":2}}}'
curl -s -o /dev/null -X DELETE -H "Mcp-Session-Id: $sid" "$url"
`

// Red team (SPEC §17.4, behaviour §7.5): peer text is escaped where it is
// rendered, Markdown included. A campaign's NOT_TESTED "other" reason (the
// report's verdictReason, which quotes the agent's argument member names)
// goes into campaign.md's gate line and "NOT_TESTED runs by kind" line
// unescaped: raw HTML and a link written by the agent. `report` renders
// the same verdictReason through escape.Markdown; campaign.md does not.
func TestRed2CampaignMarkdownEscapesPeerText(t *testing.T) {
	campaignNeedTools(t, "curl", "sed", "tr")
	t.Parallel()
	plain := e2eBinary(t, "agent-harness-plain")
	dir := t.TempDir()
	script := filepath.Join(dir, "case.sh")
	if err := os.WriteFile(script, []byte(red2CaseConflictAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := runCampaignE2E(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet", "--agent-transport", "http",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--", "sh", script)
	if r.code != 3 || len(r.summary.Runs) != 1 || !strings.Contains(r.summary.Runs[0].Reason, "<img src=x") {
		t.Fatalf("exit %d, runs %+v; want 3 and one NOT_TESTED run whose reason quotes the member names\nstderr:\n%s", r.code, r.summary.Runs, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "campaign.md"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(md), "\n") {
		if strings.Contains(line, "<img") || strings.Contains(line, "<IMG") || strings.Contains(line, "](http://x)") {
			t.Errorf("campaign.md line %d renders the agent's text as HTML or a link: %s", i+1, line)
		}
	}
}

// Red team (SPEC §17.2, §17.1): a stdio run in which the agent's MCP
// client starts the proxy twice (a client that restarts its server, or an
// agent that retries its task) leaves one report.json and one trace.jsonl,
// each written by both proxies: the second proxy overwrites the first's.
// Here the first session double-books (naive re-send after F1: the first
// proxy's final report is FAIL, DUPLICATE_EXECUTION), the second books once
// more and checks (PASS). The backend's ground truth (--state-file) holds 3
// executions of create_booking; the campaign records PASS and exits 0.
// Expected: never PASS (the run is at least NOT_TESTED: more than one
// proxy ran, and the first one's final report was FAIL), never exit 0.
func TestRed2CampaignSecondProxyOverwritesFail(t *testing.T) {
	t.Parallel()
	plain := e2eBinary(t, "agent-harness-plain")
	dir := t.TempDir()
	state := filepath.Join(dir, "state.jsonl")
	out := filepath.Join(dir, "out")
	r := runCampaignE2E(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--upstream-arg=--state-file="+state, "--",
		"sh", "-c", `"$0" agent --behaviour naive --mcp-config "$AGENT_HARNESS_MCP_CONFIG"; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain)
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	executions := strings.Count(string(b), "create_booking")
	if executions < 2 {
		t.Fatalf("the backend executed create_booking %d times, want at least 2 (state file:\n%s)", executions, b)
	}
	if len(r.summary.Runs) != 1 {
		t.Fatalf("%d runs, want 1\nstderr:\n%s", len(r.summary.Runs), r.stderr)
	}
	rec := r.summary.Runs[0]
	if rec.Verdict == "PASS" || r.code == 0 {
		t.Errorf("the backend executed create_booking %d times (the first proxy judged it FAIL), but the run's record is %s (%s) and the gate exits %d\nstdout:\n%s",
			executions, rec.Verdict, rec.Reason, r.code, r.stdout)
	}
}

// Red team (SPEC §17.2): "a run is judged from the proxy's final report,
// never from a report still running". A resumed campaign (and a merge)
// keeps every run.json it finds as the run's record without looking at
// its reportStatus: a record that says it was taken from a report still
// "running" — as the campaign before b28dc24 wrote it, where the run's
// report.json says "running" too — stays PASS, and the gate exits 0. This
// is the upgrade path: shards or a killed campaign of the previous build,
// resumed or merged by this one. Expected: such a record is NOT_TESTED
// (or the run is run again), never a PASS the gate counts: exit 3.
func TestRed2ResumeKeepsRecordOfRunningReport(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	args := sampleCampaignArgs(t, out, []string{"--runs", "2", "--scenarios", "F1", "--quiet"}, "--behaviour", "careful")
	r := runCampaignE2E(t, out, nil, args...)
	if r.code != 0 || len(r.summary.Runs) != 2 {
		t.Fatalf("first campaign: exit %d, %d runs; want 0, 2\nstderr:\n%s", r.code, len(r.summary.Runs), r.stderr)
	}
	// Run 1 as the previous build recorded a report still running.
	dir := filepath.Join(out, "runs", "F1", "1")
	for _, f := range []struct{ name, from, to string }{
		{"report.json", `"status":"finished"`, `"status":"running"`},
		{"run.json", `"reportStatus": "finished"`, `"reportStatus": "running"`},
	} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), f.from) {
			t.Fatalf("%s lacks %s:\n%s", f.name, f.from, b)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(strings.Replace(string(b), f.from, f.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = runCampaignE2E(t, out, nil, args...)
	for _, rec := range r.summary.Runs {
		if rec.Run == 1 && rec.Verdict == "PASS" && rec.ReportStatus != "finished" {
			t.Errorf("resume: run 1 kept as PASS from a report with status %q (%s)", rec.ReportStatus, rec.Reason)
		}
	}
	if r.code == 0 {
		t.Errorf("resume: exit 0 with run 1 judged from a report still running\nstdout:\n%s", r.stdout)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	cmd := exec.Command(e2eBinary(t, "agent-harness"), "campaign", "merge", out, "--out", merged)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code == 0 {
		t.Errorf("merge: exit 0 with run 1 judged from a report still running\nstdout:\n%s", stdout.String())
	}
}
