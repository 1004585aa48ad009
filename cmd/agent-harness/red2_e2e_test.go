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

// red2Report runs `agent-harness report FILE [flags]`: exit code, stderr.
func red2Report(t *testing.T, file string, flags ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(e2eBinary(t, "agent-harness"), append([]string{"report", file}, flags...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// Red team (SPEC §17.4, behaviour §7.3): `report FILE` renders a
// campaign.json with the gate's exit code. It refuses the campaign.json
// of every campaign whose gate passed ("$.gate.failures: type null, want
// [array]": Decide leaves Failures nil when nothing fails) and of every
// --agent-transport http campaign ("$.plan.agentTransport: schema
// false"): exit 2 for files the campaign itself just wrote.
func TestRed2ReportRefusesRealCampaignJSON(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		flags []string
		code  int
	}{
		{"green stdio campaign", nil, 0},
		{"http campaign", []string{"--agent-transport", "http"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			r := runCampaignE2E(t, out, nil, sampleCampaignArgs(t, out, append([]string{"--runs", "1", "--scenarios", "F1", "--quiet"}, tt.flags...),
				"--behaviour", "careful")...)
			if r.code != tt.code {
				t.Fatalf("campaign: exit %d, want %d\nstderr:\n%s", r.code, tt.code, r.stderr)
			}
			if code, stderr := red2Report(t, filepath.Join(out, "campaign.json")); code != r.code {
				t.Errorf("report campaign.json: exit %d, want the gate's %d\nstderr:\n%s", code, r.code, stderr)
			}
		})
	}
}

// Red team (SPEC §17.3, §17.9, behaviour §7.4, §9.4): a merge of an
// incomplete set of shards is never green — "--allow-incomplete merges
// what is there, still exit 3". `report merged/campaign.json
// --not-tested-ok` turns that gate's 3 into exit 0: --not-tested-ok is for
// the NOT_TESTED verdict, not for runs that never ran (as it is not for an
// interrupted run).
func TestRed2ReportNotTestedOKGreensIncompleteMerge(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard0")
	r := runCampaignE2E(t, shard, nil, sampleCampaignArgs(t, shard, []string{"--runs", "2", "--scenarios", "F1", "--shard", "0/2", "--quiet"},
		"--behaviour", "careful")...)
	if r.code != 0 {
		t.Fatalf("shard 0/2: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	merged := filepath.Join(dir, "merged")
	cmd := exec.Command(e2eBinary(t, "agent-harness"), "campaign", "merge", shard, "--out", merged, "--allow-incomplete")
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("merge --allow-incomplete: exit %d, want 3", code)
	}
	if code, stderr := red2Report(t, filepath.Join(merged, "campaign.json")); code != 3 {
		t.Errorf("report: exit %d, want 3\n%s", code, stderr)
	}
	if code, stderr := red2Report(t, filepath.Join(merged, "campaign.json"), "--not-tested-ok"); code == 0 {
		t.Errorf("report --not-tested-ok of a merge missing slice 1/2: exit 0, want 3 (the missing run was never judged)\n%s", stderr)
	}
}

// Red team (SPEC §17.1, behaviour §9.4): a campaign interrupted by SIGINT
// after 1 of its 2 runs exits 130, but the campaign.json, campaign.md and
// the stdout gate line it writes say "gate: exit 0" (gate.exitCode 0,
// complete false): the unfinished run is not counted at all. A merge of
// the same incomplete set says exit 3 (GateIncomplete). Anything that
// reads the gate from the file (report campaign.json, a CI step reading
// gate.exitCode) sees a green gate over a run that was never judged.
// Expected: an incomplete campaign's gate is never 0.
func TestRed2InterruptedCampaignGateSaysExit0(t *testing.T) {
	t.Parallel()
	plain := e2eBinary(t, "agent-harness-plain")
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	out := filepath.Join(dir, "out")
	// The first run books carefully; the second interrupts the campaign.
	r := runCampaignE2E(t, out, nil, "--out", out, "--runs", "2", "--scenarios", "F1", "--quiet",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--",
		"sh", "-c", `if [ -e "$1" ]; then kill -INT $PPID; sleep 30; exit 0; fi; : > "$1"; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain, marker)
	if r.code != 130 || r.summary.Complete || len(r.summary.Runs) != 1 {
		t.Fatalf("exit %d, complete %v, %d runs; want 130, false, 1\nstderr:\n%s", r.code, r.summary.Complete, len(r.summary.Runs), r.stderr)
	}
	if r.summary.Gate.ExitCode == 0 {
		t.Errorf("campaign.json of the interrupted campaign (1 of 2 runs): gate %+v, want exit 3 (incomplete)", r.summary.Gate)
	}
	if strings.Contains(r.stdout, "gate: exit 0") {
		t.Errorf("stdout of the interrupted campaign says the gate passed:\n%s", r.stdout)
	}
}

// Red team (SPEC §17.3, behaviour §7.3 "no rendering of it looks green"):
// the junit.xml of a merge missing a shard (gate exit 3, incomplete) has
// one passing test case and no failure or skipped one: the missing run
// and the gate do not appear, so a CI step that reads the JUnit file
// (the usual test-report upload) shows the campaign green. The same holds
// for a gate that fails on NOT_TESTED share (skipped cases only).
// Expected: the JUnit file carries the gate's failure (or a case per
// missing run that is not a pass).
func TestRed2IncompleteMergeJUnitLooksGreen(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard0")
	r := runCampaignE2E(t, shard, nil, sampleCampaignArgs(t, shard, []string{"--runs", "2", "--scenarios", "F1", "--shard", "0/2", "--quiet"},
		"--behaviour", "careful")...)
	if r.code != 0 {
		t.Fatalf("shard 0/2: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	merged := filepath.Join(dir, "merged")
	cmd := exec.Command(e2eBinary(t, "agent-harness"), "campaign", "merge", shard, "--out", merged, "--allow-incomplete")
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("merge --allow-incomplete: exit %d, want 3", code)
	}
	b, err := os.ReadFile(filepath.Join(merged, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `failures="0" skipped="0"`) && !strings.Contains(string(b), "<failure") {
		t.Errorf("junit.xml of a merge whose gate exits 3 (1 of 2 runs missing) has no failure and no skipped case:\n%s", b)
	}
}
