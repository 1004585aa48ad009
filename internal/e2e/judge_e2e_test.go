package e2e

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestJudgeRealTraceOfNamelessCall (red team 2, finding 8; SPEC §17.4): a
// tools/call whose params carry no non-empty string name ({}, a number,
// "", null, an array — an agent's malformed call, answered by the
// upstream) is recorded as a call line without "tool"; `judge TRACE`
// re-judges the proxy's own trace to the live verdict (it refused it:
// missing required "tool").
func TestJudgeRealTraceOfNamelessCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, report := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "report.json")
	p := startProxy(t, nil, append(upstreamFlags(t), "--scenario", "F1", "--audit-tools", "off", "--trace", tr, "--report-file", report)...)
	p.initialize()
	p.send(rpcRequest("2", "tools/call", `{"name":"create_booking","arguments":{"room":"12"}}`))
	p.until("2")
	for i, params := range []string{`{}`, `{"name":5}`, `{"name":""}`, `null`, `[1]`} {
		id := string(rune('3' + i))
		p.send(rpcRequest(id, "tools/call", params))
		p.until(id)
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("proxy exit %d\nstderr:\n%s", code, p.stderr.String())
	}
	var live struct {
		Status, Verdict string
	}
	b, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(b, &live) != nil || live.Status != "finished" || live.Verdict != "PASS" {
		t.Fatalf("live report: %v %+v, want finished PASS", err, live)
	}
	rejudged := filepath.Join(dir, "rejudged.json")
	cmd := exec.Command(built(t, "agent-harness"), "judge", tr, "--report-file", rejudged)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	var again struct{ Verdict string }
	b, _ = os.ReadFile(rejudged)
	_ = json.Unmarshal(b, &again)
	if code := cmd.ProcessState.ExitCode(); code != 0 || again.Verdict != live.Verdict {
		t.Errorf("judge of the proxy's own trace: exit %d verdict %q, want 0 and the live %s\nstderr:\n%s", code, again.Verdict, live.Verdict, stderr.String())
	}
}

// TestProxyWriteRelistedAsReadStaysWrite (red team 2, finding 7; behaviour
// §2.2, §4.8), live: under F1 the agent books, the upstream re-lists
// create_booking with readOnlyHint: true (list_changed), and the agent
// books again — two executions. The proxy keeps create_booking a write:
// the live report and the re-judged trace are FAIL with
// DUPLICATE_EXECUTION (the re-send was a read before, not judged).
func TestProxyWriteRelistedAsReadStaysWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, report := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "report.json")
	p := startProxy(t, nil, append(upstreamFlags(t, "-relist-read-only"), "--scenario", "F1", "--audit-tools", "off", "--trace", tr, "--report-file", report)...)
	p.initialize()
	booking := `{"name":"create_booking","arguments":{"room":"12","date":"2026-11-03"}}`
	p.request("2", "tools/call", booking)
	p.request("3", "tools/call", `{"name":"add_tool","arguments":{"name":"create_booking"}}`)
	p.waitFor(func(m []byte) bool { return bytes.Contains(m, []byte(`"notifications/tools/list_changed"`)) })
	// A call of a tool the proxy does not know waits for the re-listing
	// the notification started (behaviour §2.6): after its answer the new
	// list is installed.
	p.request("4", "tools/call", `{"name":"not_listed","arguments":{}}`)
	p.request("5", "tools/call", booking)
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("proxy exit %d, want 0\nstderr:\n%s", code, p.stderr.String())
	}
	var live struct{ Status, Verdict string }
	b, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(b, &live) != nil || live.Verdict != "FAIL" || !bytes.Contains(b, []byte(`"type":"DUPLICATE_EXECUTION"`)) {
		t.Fatalf("live report: %v %+v, want FAIL with DUPLICATE_EXECUTION\nstderr:\n%s", err, live, p.stderr.String())
	}
	if !strings.Contains(p.stderr.String(), "still a write: listed as a write earlier in the run") {
		t.Errorf("the re-listed table does not say why create_booking stays a write; stderr:\n%s", p.stderr.String())
	}
	rejudged := filepath.Join(dir, "rejudged.json")
	_, stderr, code := runBuilt(t, dir, nil, "judge", tr, "--report-file", rejudged)
	var again struct{ Verdict string }
	b, _ = os.ReadFile(rejudged)
	_ = json.Unmarshal(b, &again)
	if code != 1 || again.Verdict != "FAIL" {
		t.Errorf("judge of the trace: exit %d verdict %q, want 1 FAIL\nstderr:\n%s", code, again.Verdict, stderr)
	}
}
