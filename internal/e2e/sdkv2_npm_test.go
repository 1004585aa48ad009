package e2e

// The MCP SDK v2 client (@modelcontextprotocol/client, inside OpenAI Agents
// JS) in a 2026-07-28 session over the proxy (behaviour §3.3, issue 21):
// every fault reaches it as what it claims, and the audit tools answer,
// without the client rejecting a result as invalid.

import (
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// nodeClientScript returns testdata/npm/SCRIPT when node and the npm
// package pkg (its package.json under node_modules) are there, else skips
// (or fails under AGENT_HARNESS_REQUIRE_INTEROP=1).
func nodeClientScript(t *testing.T, script string, pkg ...string) string {
	t.Helper()
	if testing.Short() {
		t.Skip("runs a node client")
	}
	if _, err := exec.LookPath("node"); err != nil {
		skipInterop(t, missingNode)
	}
	p := npmFile(t, script)
	if p == "" || npmFile(t, append(append([]string{"node_modules"}, pkg...), "package.json")...) == "" {
		skipInterop(t, missingNPM)
	}
	return p
}

// nodeClientRun is what sdkv2client.mjs and openai-agents-client.mjs print.
type nodeClientRun struct {
	Version string   `json:"version"`
	Tools   []string `json:"tools"`
	Error   string   `json:"error"`
	Results []struct {
		Result *struct {
			Content []struct{ Type, Text string } `json:"content"`
			IsError bool                          `json:"isError"`
		} `json:"result"`
		Error string `json:"error"`
	} `json:"results"`
}

type nodeCall struct {
	Tool      string         `json:"tool"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// runNodeClient runs script with the proxy command line and the calls.
func runNodeClient(t *testing.T, script string, proxy []string, calls []nodeCall) nodeClientRun {
	t.Helper()
	cfg, _ := json.Marshal(map[string]any{"command": proxy[0], "args": proxy[1:], "calls": calls})
	out, stderr, code := runNode(t, filepath.Dir(script), nil, script, string(cfg))
	if code != 0 {
		t.Fatalf("%s exit %d; stderr:\n%s", filepath.Base(script), code, stderr)
	}
	var run nodeClientRun
	if err := json.Unmarshal(out, &run); err != nil {
		t.Fatalf("%s printed %q: %v; stderr:\n%s", filepath.Base(script), out, err, stderr)
	}
	if run.Error != "" {
		t.Fatalf("%s: %s; stderr:\n%s", filepath.Base(script), run.Error, stderr)
	}
	return run
}

// TestSDKv2Client2026Faults: the SDK v2 client negotiates 2026-07-28 with
// the go-sdk upstream through the proxy; under each of F1–F5 the first
// create_booking reaches it as the fault's own result (isError and text),
// not as the client's "Invalid result" exception, and both audit tools
// answer.
func TestSDKv2Client2026Faults(t *testing.T) {
	t.Parallel()
	script := nodeClientScript(t, "sdkv2client.mjs", "@modelcontextprotocol", "client")
	sdk := built(t, "sdkupstream")
	for _, tc := range []struct {
		scenario, text string
		isError        bool
	}{
		{"F1", fault.TimeoutText, true},
		{"F2", fault.RateLimitText(60 * time.Second), true},
		{"F3", fault.TruncatedText, true},
		{"F4", `"ok":true`, false},
		{"F5", fault.ServerErrorText, true},
	} {
		t.Run(tc.scenario, func(t *testing.T) {
			t.Parallel()
			proxy := []string{built(t, "agent-harness"), "proxy", "--scenario", tc.scenario, "--upstream-command", sdk}
			run := runNodeClient(t, script, proxy, []nodeCall{
				{Tool: "create_booking", Arguments: map[string]any{"room": "a"}},
				{Tool: "cuonztech__get_score"},
				{Tool: "cuonztech__get_report", Arguments: map[string]any{"format": "json"}},
				{Tool: "cuonztech__get_report", Arguments: map[string]any{"format": "html"}},
			})
			if run.Version != "2026-07-28" {
				t.Fatalf("negotiated %q; this test is about 2026-07-28 sessions", run.Version)
			}
			if len(run.Results) != 4 {
				t.Fatalf("%d results", len(run.Results))
			}
			for i, r := range run.Results {
				if r.Error != "" || r.Result == nil || len(r.Result.Content) == 0 {
					t.Errorf("call %d: the client raised %q instead of a tool result", i, r.Error)
				}
			}
			if t.Failed() {
				return
			}
			first := run.Results[0].Result
			if first.IsError != tc.isError || !strings.Contains(first.Content[0].Text, tc.text) {
				t.Errorf("first write: isError %t text %q, want isError %t with %q", first.IsError, first.Content[0].Text, tc.isError, tc.text)
			}
			if s := run.Results[1].Result.Content[0].Text; !strings.Contains(s, "Overall:") {
				t.Errorf("get_score: %q", s)
			}
			if s := run.Results[2].Result.Content[0].Text; !json.Valid([]byte(s)) || !strings.Contains(s, `"verdict"`) {
				t.Errorf("get_report json: %.300q", s)
			}
			if r := run.Results[3].Result; !r.IsError || !strings.Contains(r.Content[0].Text, "format must be") {
				t.Errorf("get_report html: %+v", r)
			}
		})
	}
}
