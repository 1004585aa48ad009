package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestREADMELimitAgentTransport: the README's campaign limits once said
// "Only the stdio agent transport in this version ({mcp_url} is empty)"
// while --agent-transport http worked. A campaign over HTTP hands the
// agent the proxy's loopback URL in {mcp_url}, and the campaign
// limits (now in docs/campaigns.md) say so instead.
func TestREADMELimitAgentTransport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	urlFile := filepath.Join(dir, "url.txt")
	plain := built(t, "agent-harness-plain")
	r := runCampaign(t, out, nil, "--out", out, "--upstream-command", plain, "--upstream-arg", "sample-server",
		"--runs", "1", "--scenarios", "F1", "--agent-transport", "http",
		"--", "/bin/sh", "-c", `printf %s "$1" > "$2"`, "sh", "{mcp_url}", urlFile)
	got, err := os.ReadFile(urlFile)
	if err != nil {
		t.Fatalf("the agent wrote no {mcp_url}: %v (campaign exit %d)\nstderr:\n%s", err, r.code, r.stderr)
	}
	if !regexp.MustCompile(`^http://127\.0\.0\.1:[0-9]+/mcp$`).Match(got) {
		t.Errorf("{mcp_url} = %q, want the proxy's http://127.0.0.1:PORT/mcp", got)
	}

	limits := docSection(t, "docs/campaigns.md", "## Limits of campaigns")
	if strings.Contains(limits, "Only the stdio agent transport") {
		t.Errorf("docs/campaigns.md's limits still say only stdio works:\n%s", limits)
	}
	if !strings.Contains(limits, "--agent-transport http") {
		t.Errorf("docs/campaigns.md's limits do not name --agent-transport http:\n%s", limits)
	}
}
