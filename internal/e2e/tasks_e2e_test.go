package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// jobRun is what TestProxyTasksGoUpstream observes of one session.
type jobRun struct {
	answers  []string
	verdict  string
	attempts []string
	jobs     int // the upstream's ground truth: jobs completed
}

// runJobs runs the proxy in front of testdata/taskupstream; script sends
// the agent's requests.
func runJobs(t *testing.T, script func(p *peer) []string, flags ...string) jobRun {
	t.Helper()
	dir := t.TempDir()
	truth, report := filepath.Join(dir, "jobs.log"), filepath.Join(dir, "report.json")
	p := startTaskSession(t, append([]string{"--audit-tools", "off", "--upstream-command", built(t, "taskupstream"),
		"--upstream-arg=-log", "--upstream-arg", truth, "--write-tools", "create_job", "--report-file", report}, flags...)...)
	run := jobRun{answers: script(p)}
	run.verdict, run.attempts = endTaskSession(t, p, report)
	if lines, err := os.ReadFile(truth); err == nil {
		run.jobs = strings.Count(string(lines), "\n")
	}
	return run
}

// startTaskSession starts the proxy with flags and performs the MCP
// handshake at 2025-11-25 (the first version with tasks), for the task
// tests against the Go upstream (runJobs) and the npm one (taskRun).
func startTaskSession(t *testing.T, flags ...string) *peer {
	t.Helper()
	p := startProxy(t, nil, flags...)
	p.request("0", "initialize", `{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"e2e-agent","version":"0.0.1"}}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return p
}

// endTaskSession ends a task session: it closes the agent's side, expects
// exit 0, and returns the report file's verdict and the outcomes of its
// one operation's attempts.
func endTaskSession(t *testing.T, p *peer, report string) (verdict string, attempts []string) {
	t.Helper()
	if code, _ := p.closeAndWait(); code != 0 {
		t.Errorf("proxy exit %d; stderr:\n%s", code, p.stderr.String())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Verdict string `json:"verdict"`
		Report  struct {
			Operations []mrtrOp `json:"operations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Report.Operations) != 1 {
		t.Fatalf("operations %+v, want one", rep.Report.Operations)
	}
	return rep.Verdict, rep.Report.Operations[0].outcomes()
}

// result is the result member of a JSON-RPC response.
func result(m []byte) string {
	var r struct {
		Result json.RawMessage `json:"result"`
	}
	_ = json.Unmarshal(m, &r)
	return string(r.Result)
}

// TestProxyTasksGoUpstream (behaviour §4.13), against a deterministic Go
// upstream whose tasks complete at their second tasks/get: the attempt is
// the task's final status in both forms, polls are no attempts; F1 gives
// the agent the timeout instead of the handle and the proxy polls that
// task itself at the session end; the report equals the ground truth.
func TestProxyTasksGoUpstream(t *testing.T) {
	const call2026 = `{"name":"create_job","arguments":{"room":"12"}}`
	const call2025 = `{"name":"create_job","arguments":{"room":"12"},"task":{"ttl":60000}}`
	poll := func(p *peer, id string) string {
		p.request("21", "tasks/get", `{"taskId":"`+id+`"}`)
		return result(p.request("22", "tasks/get", `{"taskId":"`+id+`"}`))
	}
	for _, tc := range []struct {
		name     string
		flags    []string
		script   func(p *peer) []string
		verdict  string
		attempts []string
		jobs     int
	}{
		{"2026 polled by the agent", nil, func(p *peer) []string {
			return []string{result(p.request("1", "tools/call", call2026)), poll(p, "job-1")}
		}, "PASS", []string{"executed"}, 1},
		{"2025 polled by the agent", nil, func(p *peer) []string {
			return []string{result(p.request("1", "tools/call", call2025)), poll(p, "job-1")}
		}, "PASS", []string{"executed"}, 1},
		{"failed", nil, func(p *peer) []string {
			return []string{result(p.request("1", "tools/call", `{"name":"create_job","arguments":{"room":"12","fail":true}}`)), poll(p, "job-1")}
		}, "PASS", []string{"upstream-rejected"}, 0},
		{"never polled: the proxy polls at the end", nil, func(p *peer) []string {
			return []string{result(p.request("1", "tools/call", call2026))}
		}, "PASS", []string{"executed"}, 1},
		{"F1: the proxy polls the hidden task", []string{"--scenario", "F1"}, func(p *peer) []string {
			return []string{result(p.request("1", "tools/call", call2026)), result(p.request("2", "tools/call", call2026)), poll(p, "job-2")}
		}, "FAIL", []string{"executed/timeout", "executed"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			run := runJobs(t, tc.script, tc.flags...)
			if run.verdict != tc.verdict || !slices.Equal(run.attempts, tc.attempts) || run.jobs != tc.jobs {
				t.Errorf("verdict %s attempts %q jobs %d, want %s %q %d; answers %q", run.verdict, run.attempts, run.jobs,
					tc.verdict, tc.attempts, tc.jobs, run.answers)
			}
			if tc.flags != nil && !strings.Contains(run.answers[0], "timed out") {
				t.Errorf("first answer %s, want the timeout instead of the handle", run.answers[0])
			}
		})
	}
}
