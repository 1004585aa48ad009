package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// An agent written with the TypeScript SDK (testdata/npm/campaign-agent.mjs)
// finds its proxy through {mcp_config} and the environment, as a real
// agent would.
func TestCampaignTypeScriptSDKAgent(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		skipInterop(t, missingNode)
	}
	npm := filepath.Join(repoRoot(t), "testdata", "npm")
	if _, err := os.Stat(filepath.Join(nodeModules(t), "@modelcontextprotocol", "sdk", "package.json")); err != nil {
		skipInterop(t, missingNPM)
	}
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
			out := filepath.Join(t.TempDir(), "ts")
			r := runCampaign(t, out, []string{"AGENT_BEHAVIOUR=" + c.behaviour}, "--out", out, "--runs", "2",
				"--scenarios", "F1", "--parallel", "2", "--server-name", "bookings", "--upstream-command", bin,
				"--upstream-arg", "sample-server", "--", node, filepath.Join(npm, "campaign-agent.mjs"), "{mcp_config}")
			if r.code != c.code {
				t.Fatalf("exit %d, want %d\nstdout:\n%s\nstderr:\n%s", r.code, c.code, r.stdout, r.stderr)
			}
			for _, rec := range r.summary.Runs {
				if rec.Verdict != c.verdict {
					t.Errorf("run %s: %s (%s), want %s", rec.Dir, rec.Verdict, rec.Reason, c.verdict)
				}
			}
		})
	}
}
