package e2e

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestProxyTaskHandoffRejudged red-teams issue 21 item 1's handoff (F1 on
// a task-creating write hands the agent the timeout before the task's
// final status): in both task forms, with the re-send before the proxy
// learns the hidden task's status, with a task that fails, and with no
// re-send at all, the live report and `judge TRACE` are the same, and a
// second execution is FAIL whatever the labels.
func TestProxyTaskHandoffRejudged(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	const (
		job2026  = `{"name":"create_job","arguments":{"room":"12"}}`
		job2025  = `{"name":"create_job","arguments":{"room":"12"},"task":{"ttl":60000}}`
		fail2026 = `{"name":"create_job","arguments":{"room":"12","fail":true}}`
	)
	for _, tc := range []struct {
		name    string
		call    string
		calls   int  // create_job calls the agent sends
		poll    bool // the agent polls a handle it gets to the end
		verdict string
		jobs    int // the upstream's completed jobs
	}{
		{"2026 re-send left open", job2026, 2, false, "FAIL", 2},
		{"2025 re-send left open", job2025, 2, false, "FAIL", 2},
		{"2026 re-send polled", job2026, 2, true, "FAIL", 2},
		{"2026 three sends", job2026, 3, true, "FAIL", 3},
		{"2026 no re-send", job2026, 1, false, "PASS", 1},
		{"2026 failing task re-sent", fail2026, 2, true, "NOT_TESTED", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			truth, reportFile, tracePath := filepath.Join(dir, "jobs.log"), filepath.Join(dir, "report.json"), filepath.Join(dir, "trace.jsonl")
			p := startProxy(t, nil, "--audit-tools", "off", "--upstream-command", built(t, "taskupstream"),
				"--upstream-arg=-log", "--upstream-arg", truth, "--write-tools", "create_job", "--report-file", reportFile,
				"--scenario", "F1", "--trace", tracePath)
			p.request("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e-agent","version":"0.0.1"}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			job := 0
			var answers []string
			for i := 1; i <= tc.calls; i++ {
				id := strconv.Itoa(i)
				ans := result(p.request(id, "tools/call", tc.call))
				answers = append(answers, ans)
				job++
				if tc.poll && strings.Contains(ans, `"taskId"`) {
					tid := `{"taskId":"job-` + strconv.Itoa(job) + `"}`
					p.request(id+"1", "tasks/get", tid)
					p.request(id+"2", "tasks/get", tid)
				}
			}
			if !strings.Contains(answers[0], "timed out") {
				t.Fatalf("F1 did not answer the first call with its timeout: %q", answers[0])
			}
			if code, _ := p.closeAndWait(); code != 0 {
				t.Fatalf("proxy exit %d; stderr:\n%s", code, p.stderr.String())
			}
			live, err := os.ReadFile(reportFile)
			if err != nil {
				t.Fatal(err)
			}
			var f struct {
				Verdict string `json:"verdict"`
				Report  struct {
					VerdictReason string `json:"verdictReason"`
				} `json:"report"`
			}
			if err := json.Unmarshal(live, &f); err != nil {
				t.Fatal(err)
			}
			lines, _ := os.ReadFile(truth)
			if n := strings.Count(string(lines), "\n"); n != tc.jobs {
				t.Errorf("the upstream completed %d jobs, want %d", n, tc.jobs)
			}
			if f.Verdict != tc.verdict {
				t.Errorf("verdict %s (%s), want %s; answers %q", f.Verdict, f.Report.VerdictReason, tc.verdict, answers)
			}
			r, offline := rejudge(t, tracePath)
			if a, b := withoutStatus(t, live), withoutStatus(t, offline); a != b {
				t.Errorf("re-judged report differs from the live one\nlive:    %s\noffline: %s", a, b)
			}
			if want := map[string]int{"PASS": 0, "FAIL": 1, "NOT_TESTED": 3}[f.Verdict]; r.code != want || r.stderr != "" {
				t.Errorf("judge exit %d for %s, want %d; stderr: %s", r.code, f.Verdict, want, r.stderr)
			}
		})
	}
}

// TestProxyTaskHandoffHTTPLayer: F1 on a task-creating write with
// --listen --fault-layer http drops the connection (the handoff is
// delivered at the transport level); an identical re-send right away is
// the client library's. The re-send executed too: FAIL, afterTimeout, and
// `judge TRACE` gives the live report.
func TestProxyTaskHandoffHTTPLayer(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	dir := t.TempDir()
	truth, tracePath := filepath.Join(dir, "jobs.log"), filepath.Join(dir, "trace.jsonl")
	p := startHTTPProxy(t, "--scenario", "F1", "--audit-tools", "off", "--fault-layer", "http", "--trace", tracePath,
		"--write-tools", "create_job", "--", built(t, "taskupstream"), "-log", truth)
	s := newRawSession(t, p.url)
	s.initialize()
	send := func(id string) (*http.Response, error) {
		body := rpcRequest(id, "tools/call", `{"name":"create_job","arguments":{"room":"12"},"task":{"ttl":60000}}`)
		req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Session-Id", s.id)
		return s.hc.Do(req)
	}
	if resp, err := send("7"); err == nil {
		resp.Body.Close()
		t.Fatalf("F1 at the HTTP layer: want a dropped connection, got %d", resp.StatusCode)
	}
	resp, err := send("8")
	if err != nil {
		t.Fatalf("re-send: %v", err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"taskId"`) {
		t.Fatalf("re-send: %d %s", resp.StatusCode, b)
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr.String())
	}
	lines, _ := os.ReadFile(truth)
	if n := strings.Count(string(lines), "\n"); n != 2 {
		t.Errorf("the upstream completed %d jobs, want 2", n)
	}
	live, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	var f taskDup
	if err := json.Unmarshal(live, &f); err != nil {
		t.Fatal(err)
	}
	if f.Verdict != "FAIL" || len(f.Report.Violations) == 0 || f.Report.Violations[0].Duplicate == nil {
		t.Fatalf("verdict %s (%s); want FAIL with a duplicate", f.Verdict, f.Report.VerdictReason)
	}
	if d := f.Report.Violations[0].Duplicate; d.Executions != 2 || !d.AfterTimeout || d.Parallel {
		t.Errorf("duplicate %+v; want 2 executions, afterTimeout, not parallel", *d)
	}
	r, offline := rejudge(t, tracePath)
	if a, b := withoutStatus(t, live), withoutStatus(t, offline); a != b {
		t.Errorf("re-judged report differs from the live one\nlive:    %s\noffline: %s", a, b)
	}
	if r.code != 1 || r.stderr != "" {
		t.Errorf("judge exit %d, want 1; stderr: %s", r.code, r.stderr)
	}
}
