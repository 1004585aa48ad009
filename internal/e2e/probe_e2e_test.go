package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// probeReport is what the probe tests read of a report file.
type probeReport struct {
	Status  string `json:"status"`
	Verdict string `json:"verdict"`
	Report  struct {
		Coverage struct {
			Calls struct {
				Total int `json:"total"`
			} `json:"calls"`
		} `json:"coverage"`
	} `json:"report"`
}

func readProbeReport(t *testing.T, path string) probeReport {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r probeReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report file %s: %v\n%s", path, err, b)
	}
	return r
}

// TestVersionProbeNeverReplacesSession (behaviour §5.2, issue 21 item 2):
// a proxy whose agent sent only server/discover — the disposable version
// probe of the MCP SDK v2 client — ends after the real session's proxy
// wrote the same --report-file. Its final write is left out (one stderr
// line says so): the file keeps the real session's FAIL with both calls,
// not the probe's NOT_TESTED without any.
func TestVersionProbeNeverReplacesSession(t *testing.T) {
	t.Parallel()
	sdk := built(t, "sdkupstream")
	report := filepath.Join(t.TempDir(), "report.json")
	probe := exec.Command(built(t, "agent-harness"), "proxy", "--upstream-command", sdk,
		"--scenario", "F1", "--audit-tools", "off", "--report-file", report)
	probeErr := &syncBuffer{}
	probe.Stderr = probeErr
	in, err := probe.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outPipe, err := probe.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := probe.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = probe.Process.Kill(); _ = probe.Wait() })
	const discover = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n"
	if _, err := in.Write([]byte(discover)); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(outPipe).ReadString('\n')
	if err != nil || !strings.Contains(line, `"supportedVersions"`) {
		t.Fatalf("discover answer %q: %v; stderr:\n%s", line, err, probeErr.String())
	}

	// The real session, in a second proxy process on the same file.
	real := exec.Command(built(t, "agent-harness"), "proxy", "--upstream-command", sdk,
		"--scenario", "F1", "--audit-tools", "off", "--report-file", report)
	realErr := &syncBuffer{}
	real.Stderr = realErr
	sdkAgentSession(t, real, false)
	if got := readProbeReport(t, report); got.Status != "finished" || got.Verdict != "FAIL" || got.Report.Coverage.Calls.Total != 2 {
		t.Fatalf("the session's report: %+v; stderr:\n%s", got, realErr.String())
	}

	// The probe ends now, after the session.
	in.Close()
	if err := probe.Wait(); err != nil {
		t.Errorf("probe proxy: %v; stderr:\n%s", err, probeErr.String())
	}
	if got := readProbeReport(t, report); got.Status != "finished" || got.Verdict != "FAIL" || got.Report.Coverage.Calls.Total != 2 {
		t.Errorf("after the probe ended the report file is %+v, want the session's finished FAIL with 2 calls", got)
	}
	if want := "[agent-harness] this proxy served only a version probe (server/discover) and another process has written report file " + report + " since: the file is left to it\n"; !strings.Contains(probeErr.String(), want) {
		t.Errorf("probe stderr lacks %q:\n%s", want, probeErr.String())
	}
}

// TestVersionProbeAloneWritesItsReport: a probe no other process followed
// writes its report as any session (finished, NOT_TESTED, no calls), which
// a campaign leaves out as every finished report without a call.
func TestVersionProbeAloneWritesItsReport(t *testing.T) {
	t.Parallel()
	sdk := built(t, "sdkupstream")
	report := filepath.Join(t.TempDir(), "report.json")
	probe := exec.Command(built(t, "agent-harness"), "proxy", "--upstream-command", sdk,
		"--audit-tools", "off", "--report-file", report)
	stderr := &syncBuffer{}
	probe.Stderr = stderr
	probe.Stdin = strings.NewReader(`{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"probe","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}}}` + "\n")
	if err := probe.Run(); err != nil {
		t.Fatalf("probe proxy: %v; stderr:\n%s", err, stderr.String())
	}
	if got := readProbeReport(t, report); got.Status != "finished" || got.Verdict != "NOT_TESTED" || got.Report.Coverage.Calls.Total != 0 {
		t.Errorf("report %+v", got)
	}
	if strings.Contains(stderr.String(), "version probe") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// TestOpenAIAgentsProbeAndSession: OpenAI Agents JS's MCPServerStdio (the
// SDK v2 client, versionNegotiation "auto") starts the proxy command twice
// per connect — with --no-replace the probe's proxy claims report.json and
// the session's report.2.json: the probe's report is finished without a
// call (a campaign leaves it out), the session's holds the F1 double
// execution; without --no-replace the one file ends as the session's
// report, never the probe's.
func TestOpenAIAgentsProbeAndSession(t *testing.T) {
	t.Parallel()
	script := nodeClientScript(t, "openai-agents-client.mjs", "@openai", "agents-core")
	sdk := built(t, "sdkupstream")
	calls := []nodeCall{
		{Tool: "create_booking", Arguments: map[string]any{"room": "a"}},
		{Tool: "create_booking", Arguments: map[string]any{"room": "a"}},
	}
	for _, noReplace := range []bool{true, false} {
		dir := t.TempDir()
		report := filepath.Join(dir, "report.json")
		proxy := []string{built(t, "agent-harness"), "proxy", "--upstream-command", sdk,
			"--scenario", "F1", "--audit-tools", "off", "--report-file", report}
		if noReplace {
			proxy = append(proxy, "--no-replace")
		}
		run := runNodeClient(t, script, proxy, calls)
		if len(run.Results) != 2 || run.Results[0].Result == nil || !run.Results[0].Result.IsError || run.Results[1].Result == nil {
			t.Fatalf("results %+v", run.Results)
		}
		session := report
		if noReplace {
			session = filepath.Join(dir, "report.2.json")
			if got := readProbeReport(t, report); got.Status != "finished" || got.Report.Coverage.Calls.Total != 0 {
				t.Errorf("the probe's report.json: %+v", got)
			}
		}
		if got := readProbeReport(t, session); got.Status != "finished" || got.Verdict != "FAIL" || got.Report.Coverage.Calls.Total != 2 {
			t.Errorf("no-replace %t: the session's %s: %+v", noReplace, filepath.Base(session), got)
		}
	}
}

// TestCampaignOpenAIAgentsProbe: a campaign whose agent is built on
// OpenAI Agents JS (testdata/npm/openai-agents-campaign-agent.mjs) — two
// proxy processes per run, the probe's and the session's — judges each run
// from the session's report: F1 with a careful agent PASS, with a naive
// one FAIL, each naming report.2.json as the one with the tool calls; the
// probe's report is never what decides.
func TestCampaignOpenAIAgentsProbe(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		skipInterop(t, missingNode)
	}
	script := nodeClientScript(t, "openai-agents-campaign-agent.mjs", "@openai", "agents-core")
	bin := built(t, "agent-harness-plain") // the upstream; the campaign and its proxies are the binary under test
	for _, c := range []struct {
		behaviour string
		code      int
		verdict   string
	}{
		{"careful", 0, "PASS"},
		{"naive", 1, "FAIL"},
	} {
		t.Run(c.behaviour, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "oa")
			r := runCampaign(t, out, []string{"AGENT_BEHAVIOUR=" + c.behaviour}, "--out", out, "--runs", "2",
				"--scenarios", "F1", "--parallel", "2", "--server-name", "bookings", "--upstream-command", bin,
				"--upstream-arg", "sample-server", "--", node, script, "{mcp_config}")
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			for _, rec := range r.summary.Runs {
				if rec.Verdict != c.verdict || !strings.Contains(rec.Reason, "only report.2.json had tool calls") {
					t.Errorf("run %s: %s (%s), want %s judged from report.2.json", rec.Dir, rec.Verdict, rec.Reason, c.verdict)
				}
			}
		})
	}
}
