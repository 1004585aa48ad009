package e2e

// The MCP Inspector's CLI starts the proxy without the proxy's `--`: it
// splits its own command line at the first `--` (behaviour §2.7), so
// `mcp-inspector --cli agent-harness proxy --scenario F1 -- node server.js`
// reaches the proxy as `proxy --scenario F1 node server.js`.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/fault"
)

func TestInspectorCLIStartsTheProxyWithoutDashes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs node clients and servers")
	}
	memory := npmServer(t, "server-memory")
	cli := npmFile(t, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js")
	if cli == "" {
		skipInterop(t, missingNPM)
	}
	call := []string{"--method", "tools/call", "--tool-name", "create_entities",
		"--tool-arg", `entities=[{"name":"booking-1","entityType":"booking","observations":["room 12"]}]`}
	tests := []struct {
		name string
		// argv builds the inspector's command line from the proxy's flags
		// and the upstream command.
		argv func(proxy, upstream []string) []string
	}{
		{"the proxy's -- taken by the inspector", func(proxy, upstream []string) []string {
			return append(append(append(append([]string{cli, "--cli"}, proxy...), "--"), upstream...), call...)
		}},
		{"no --", func(proxy, upstream []string) []string {
			return append(append(append([]string{cli, "--cli"}, proxy...), upstream...), call...)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			report := filepath.Join(dir, "report.json")
			proxy := []string{built(t, "agent-harness"), "proxy", "--audit-tools", "off", "--scenario", "F1", "--report-file", report}
			env := []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")}
			// The CLI reads its own package.json relative to the working
			// directory: run it from its build directory.
			out, stderr, code := runNode(t, filepath.Dir(cli), env, tt.argv(proxy, memory)...)
			if code != 0 {
				t.Fatalf("inspector exit %d, want 0; stderr:\n%s", code, stderr)
			}
			if !strings.Contains(string(out), fault.TimeoutText) {
				t.Errorf("inspector printed %s, want the F1 timeout result", out)
			}
			b, err := os.ReadFile(report)
			if err != nil {
				t.Fatal(err)
			}
			var r struct {
				Status string `json:"status"`
				Report struct {
					Verdict string `json:"verdict"`
				} `json:"report"`
			}
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			if r.Status != "finished" || r.Report.Verdict != "PASS" {
				t.Errorf("report status %q verdict %q, want finished PASS", r.Status, r.Report.Verdict)
			}
		})
	}
}
