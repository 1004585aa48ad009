package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestProxyStalledUpstream: the upstream stops reading its input. A 1 MB
// call (more than its pipe holds) gets the timeout answer, a ping sent
// behind it does not stop the proxy from reading the agent, and the
// agent's EOF ends the session (exit 0) with an answer for the ping.
func TestProxyStalledUpstream(t *testing.T) {
	t.Parallel() // separate processes and files
	p := startProxy(t, nil, append(upstreamFlags(t), "--upstream-timeout", "3s")...)
	p.initialize()
	if resp := p.request("1", "tools/call", `{"name":"stop_reading","arguments":{}}`); !strings.Contains(string(resp), "stopped reading") {
		t.Fatalf("stop_reading: %s", resp)
	}
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"` + strings.Repeat("x", 1<<20) + `"}}}`)
	p.send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	p.send(`{"jsonrpc":"2.0","method":"notifications/progress","params":{"progressToken":1,"progress":1}}`)
	_, resp := p.until("2")
	sameJSON(t, "call to a stalled upstream", []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Error: the upstream MCP server did not answer within 3000 ms (agent-harness call timeout). The outcome is unknown."}],"isError":true}}`), resp)
	code, rest := p.closeAndWait()
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	pinged := false
	for _, m := range rest {
		pinged = pinged || strings.Contains(string(m), `"id":3,"error"`)
	}
	if !pinged {
		t.Errorf("the ping got no answer at the session end: %q", rest)
	}
}

// TestProxyDropsToolsCallWithoutID: a tools/call without an id never
// reaches the upstream (which would execute it); the report counts it and
// the run is NOT_TESTED, not a PASS with an execution nobody judged.
func TestProxyDropsToolsCallWithoutID(t *testing.T) {
	t.Parallel()
	reportFile := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, nil, append(upstreamFlags(t), "--audit-tools", "off", "--report-file", reportFile)...)
	p.initialize()
	p.request("1", "tools/call", `{"name":"create_booking","arguments":{"room":"a"}}`)
	p.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"create_booking","arguments":{"room":"a"}}}`)
	counts := p.request("2", "tools/call", `{"name":"get_execution_counts","arguments":{}}`)
	if code, _ := p.closeAndWait(); code != 0 {
		t.Errorf("exit %d", code)
	}
	if !strings.Contains(string(counts), `"structuredContent":{"counts":[{"tool":"create_booking","arguments":{"room":"a"},"count":1}]}`) {
		t.Errorf("execution counts %s: want create_booking executed once", counts)
	}
	if w := `[agent-harness] WARNING: the agent sent a tools/call without an id (tool "create_booking")`; !strings.Contains(p.stderr.String(), w) {
		t.Errorf("stderr lacks %q:\n%s", w, p.stderr.String())
	}
	b, err := os.ReadFile(reportFile)
	if err != nil {
		t.Fatal(err)
	}
	var rep struct {
		Verdict string `json:"verdict"`
		Report  struct {
			VerdictReason string `json:"verdictReason"`
			Coverage      struct {
				Dropped int `json:"droppedNotificationCalls"`
			} `json:"coverage"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Verdict != "NOT_TESTED" || rep.Report.Coverage.Dropped != 1 || !strings.Contains(rep.Report.VerdictReason, "without an id") {
		t.Errorf("report: %.2000s", b)
	}
}
