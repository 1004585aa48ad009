package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// stateLines reads the sample server's ground truth.
func stateLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range bytes.Split(bytes.TrimSpace(b), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(line, &m); err != nil {
			t.Fatalf("state line %q: %v", line, err)
		}
		out = append(out, m)
	}
	return out
}

// The reference agent against the sample server behind the proxy (F1):
// what it prints, and what the backend really executed.
func TestReferenceAgentOnSampleServer(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, c := range []struct {
		behaviour   string
		executions  int
		wantStdout  []string
		wantVerdict string
	}{
		{"careful", 1, []string{"create_booking (key ref-1-1): failed: Error: the request timed out", "find_bookings: 1 booking(s) found",
			"result: the booking exists; not re-sending"}, "PASS"},
		{"naive", 2, []string{"naive: re-sending at once with a new key", "create_booking (key ref-1-2): booked B-0002", "result: booked"}, "FAIL"},
	} {
		t.Run(c.behaviour, func(t *testing.T) {
			dir := t.TempDir()
			state, report := filepath.Join(dir, "state.jsonl"), filepath.Join(dir, "report.json")
			cfg := map[string]any{"mcpServers": map[string]any{"h": map[string]any{"command": bin,
				"args": []string{"proxy", "--scenario", "F1", "--report-file", report, "--", bin, "sample-server", "--state-file", state}}}}
			b, _ := json.Marshal(cfg)
			mcp := filepath.Join(dir, "mcp.json")
			os.WriteFile(mcp, b, 0o666)
			cmd := exec.Command(bin, "agent", "--behaviour", c.behaviour, "--mcp-config", mcp)
			cmd.Env = append(os.Environ(), "AGENT_HARNESS_SEED=1")
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("agent: %v\n%s", err, out)
			}
			for _, w := range c.wantStdout {
				if !strings.Contains(string(out), w) {
					t.Errorf("stdout lacks %q:\n%s", w, out)
				}
			}
			creates := 0
			for _, l := range stateLines(t, state) {
				if l["tool"] == "create_booking" {
					creates++
				}
			}
			if creates != c.executions {
				t.Errorf("the backend executed create_booking %d times, want %d", creates, c.executions)
			}
			var rep struct{ Verdict string }
			rb, _ := os.ReadFile(report)
			if json.Unmarshal(rb, &rep); rep.Verdict != c.wantVerdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, c.wantVerdict)
			}
		})
	}
}

// The agent reaches a server through an HTTP entry of mcp.json, and the
// sample server serves Streamable HTTP with --listen.
func TestReferenceAgentHTTPEntry(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	dir := t.TempDir()
	state := filepath.Join(dir, "state.jsonl")
	srv := exec.Command(bin, "sample-server", "--listen", "127.0.0.1:0", "--state-file", state)
	stderr, _ := srv.StderrPipe()
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Process.Kill(); srv.Wait() })
	sc := bufio.NewScanner(stderr)
	url := ""
	for sc.Scan() {
		if _, u, ok := strings.Cut(sc.Text(), "listening on "); ok {
			url = u
			break
		}
	}
	if !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("no URL on stderr (got %q)", url)
	}
	mcp := filepath.Join(dir, "mcp.json")
	os.WriteFile(mcp, []byte(`{"mcpServers":{"web":{"type":"http","url":"`+url+`"}}}`), 0o666)
	out, err := exec.Command(bin, "agent", "--behaviour", "careful", "--mcp-config", mcp, "--seed", "9").Output()
	if err != nil || !strings.Contains(string(out), "create_booking (key ref-9-1): booked B-0001") {
		t.Fatalf("agent: %v\n%s", err, out)
	}
	if l := stateLines(t, state); len(l) != 1 || l[0]["tool"] != "create_booking" {
		t.Errorf("state %v", l)
	}
}

func TestAgentUsageErrors(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"agent", "--mcp-config", "x"}, "flag --behaviour is required"},
		{[]string{"agent", "--behaviour", "flaky:2", "--mcp-config", "x"}, "P must be a number from 0 to 1"},
		{[]string{"agent", "--behaviour", "careful", "--mcp-config", "/nonexistent/mcp.json"}, "flag --mcp-config"},
		{[]string{"sample-server", "extra"}, "unexpected argument extra"},
	} {
		cmd := exec.Command(bin, c.args...)
		cmd.Env = append(os.Environ(), "AGENT_HARNESS_BEHAVIOUR=", "AGENT_HARNESS_MCP_CONFIG=")
		var errb bytes.Buffer
		cmd.Stderr = &errb
		_ = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(errb.String(), c.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", c.args, code, errb.String(), c.want)
		}
	}
}
