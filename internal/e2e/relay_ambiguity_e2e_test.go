package e2e

// End-to-end tests of what the relay (internal/relay) refuses and how it
// matches ids: the built proxy in front of a real upstream, judged by what
// reached the upstream.

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The test upstream decodes with Go's encoding/json, which matches member
// names case-insensitively (last wins): each message would have executed
// create_booking a second time while the proxy saw something else. The
// proxy refuses it; only the first (F1 ghost) write executes.
func TestRelayAmbiguityCaseVariants(t *testing.T) {
	t.Parallel()
	const call = `"method":"tools/call","params":{"name":"create_booking","arguments":` + bookingArgs + `}`
	tests := []struct {
		name   string
		line   string // %d: the request id
		warn   string
		answer bool // the message has a usable id: it gets an Invalid Request error
	}{
		{"NAME beside name",
			`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_booking","NAME":"create_booking","arguments":` + bookingArgs + `}}`,
			`member "NAME" differs from "name" only in letter case`, true},
		{"Arguments beside arguments",
			`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"1"},"Arguments":` + bookingArgs + `}}`,
			`member "Arguments" differs from "arguments" only in letter case`, true},
		{"Method", `{"jsonrpc":"2.0","id":%d,"Method":"tools/call","params":{"name":"create_booking","arguments":` + bookingArgs + `}}`,
			`member "Method" differs from "method" only in letter case`, true},
		{"ID", `{"jsonrpc":"2.0","ID":%d,` + call + `}`,
			`member "ID" differs from "id" only in letter case`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startSession(t, "--scenario", "F1", "--audit-tools", "off")
			if got := p.call("create_booking", bookingArgs); got.text() != timeoutText {
				t.Fatalf("first write: %q, want the F1 timeout", got.text())
			}
			p.nextID++
			p.writeLine(fmt.Sprintf(tt.line, p.nextID))
			if tt.answer {
				r := p.await(p.nextID)
				if r.Error == nil || r.Error.Code != -32600 || !strings.Contains(r.Error.Message, tt.warn) {
					t.Errorf("answer %+v %s, want error -32600 %q", r.Error, r.Result, tt.warn)
				}
			}
			if got := p.call("get_booking", `{"id":"x"}`); got.IsError {
				t.Errorf("a later call failed: %q", got.text())
			}
			p.stderr.waitFor(t, "[agent-harness] WARNING: agent-harness: "+tt.warn)
			if code := p.finish(); code != 0 {
				t.Errorf("exit %d", code)
			}
			if got := p.upstreamExecutions()["create_booking"]; got != 1 {
				t.Errorf("upstream executed create_booking %d times, want 1", got)
			}
			p.checkExecutions(p.readReport())
		})
	}
}

// A JavaScript upstream echoes a request id as a JavaScript number: 2.0
// comes back as 2, 9007199254740993 as 9007199254740992. The answer still
// belongs to the agent's call: F1 replaces it with the timeout, the agent
// gets exactly one response with its own id bytes, and both writes are
// recorded as executed.
func TestRelayAmbiguityJSNumericIDs(t *testing.T) {
	t.Parallel()
	node, err := exec.LookPath("node")
	if err != nil {
		skipInterop(t, missingNode)
	}
	dir := t.TempDir()
	counts := filepath.Join(dir, "counts")
	report := filepath.Join(dir, "report.json")
	script := filepath.Join(repoRoot(t), "testdata", "jsupstream", "main.js")
	p := startProxy(t, nil, "--upstream-command", node, "--upstream-arg="+script, "--upstream-arg="+counts,
		"--report-file", report, "--audit-tools", "off", "--scenario", "F1")
	p.initialize()

	p.send(`{"jsonrpc":"2.0","id":2.0,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"12"}}}`)
	first := p.read()
	var r struct {
		ID     json.RawMessage
		Result toolResult
	}
	if err := json.Unmarshal(first, &r); err != nil || string(r.ID) != `2.0` || r.Result.text() != timeoutText {
		t.Errorf("first answer %s, want id 2.0 and the F1 timeout", first)
	}
	p.send(`{"jsonrpc":"2.0","id":9007199254740993,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"14"}}}`)
	if got, want := string(p.read()), `{"jsonrpc":"2.0","id":9007199254740993,"result":{"content":[{"type":"text","text":"create_booking done"}]}}`; got != want {
		t.Errorf("second answer\n got %s\nwant %s", got, want)
	}
	code, rest := p.closeAndWait()
	if code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	for _, m := range rest {
		t.Errorf("another message after the answers: %s", m)
	}
	if c, _ := os.ReadFile(counts); string(c) != "2" {
		t.Errorf("upstream executions %q, want 2", c)
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var fr fileReport
	if err := json.Unmarshal(b, &fr); err != nil {
		t.Fatal(err)
	}
	if got := fr.executions()["create_booking"]; got != 2 {
		t.Errorf("report executions %d, want 2; operations %+v", got, fr.Report.Operations)
	}
}

// The agent cancels a write in flight and sends it again; the upstream
// (which ignores cancellations) executes both. The cancelled call counts as
// executed once its answer arrives: a duplicate, not a PASS.
func TestRelayAmbiguityCancelledWriteExecuted(t *testing.T) {
	t.Parallel()
	const args = `{"room":"12","date":"2026-11-03","sleep_ms":200}`
	p := startSession(t, "--audit-tools", "off")
	id := p.sendCall("create_booking", args)
	p.notify("notifications/cancelled", fmt.Sprintf(`{"requestId":%d,"reason":"the user gave up"}`, id))
	p.call("create_booking", args)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if got := p.upstreamExecutions()["create_booking"]; got != 2 {
		t.Fatalf("upstream executed create_booking %d times, want 2", got)
	}
	r := p.readReport()
	p.checkExecutions(r)
	if r.Verdict == "PASS" {
		t.Errorf("verdict PASS, but the same booking executed twice (%s)", r.Report.VerdictReason)
	}
}

// The agent cancels a write whose answer does not come before the session
// ends: its outcome is unknown, never "not executed".
func TestRelayAmbiguityCancelledWriteUnanswered(t *testing.T) {
	t.Parallel() // separate processes and files
	p := startSession(t, "--audit-tools", "off")
	id := p.sendCall("create_booking", `{"room":"12","date":"2026-11-03","sleep_ms":20000}`)
	p.notify("notifications/cancelled", fmt.Sprintf(`{"requestId":%d,"reason":"the user gave up"}`, id))
	p.call("get_booking", `{"id":"x"}`)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	r := p.readReport()
	found := false
	for _, op := range r.Report.Operations {
		if op.Tool != "create_booking" {
			continue
		}
		found = true
		if op.Outcome == "NOT_EXECUTED" || op.Executions != 0 {
			t.Errorf("cancelled unanswered write: outcome %s, executions %d; want unknown", op.Outcome, op.Executions)
		}
	}
	if !found {
		t.Errorf("the cancelled write is not in the report: %+v", r.Report.Operations)
	}
	if r.Verdict == "PASS" {
		t.Errorf("verdict PASS with a write of unknown outcome")
	}
}

// A write tool the upstream adds at run time (notifications/tools/
// list_changed) and the agent calls as soon as it sees the notification is
// judged as a write: calling it twice is a duplicate.
func TestRelayAmbiguityToolAddedThenCalled(t *testing.T) {
	t.Parallel()
	p := startSession(t, "--audit-tools", "off")
	id := p.sendCall("add_tool", `{"name":"create_invoice"}`)
	p.awaitNotification("notifications/tools/list_changed")
	p.awaitCall(id)
	p.call("create_invoice", `{"amount":1}`)
	p.call("create_invoice", `{"amount":1}`)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	r := p.readReport()
	if r.Verdict != "FAIL" {
		t.Errorf("verdict %s (%s), want FAIL: the added write executed twice; operations %+v",
			r.Verdict, r.Report.VerdictReason, r.Report.Operations)
	}
}

// awaitNotification reads the proxy's messages until a notification with
// method arrives; responses read meanwhile are kept for await.
func (p *stdioProxy) awaitNotification(method string) {
	p.t.Helper()
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("proxy closed stdout before %s", method)
			}
			var r rpcResponse
			if err := json.Unmarshal(m, &r); err != nil {
				p.t.Fatalf("proxy wrote invalid JSON %q: %v", m, err)
			}
			if r.Method == method {
				return
			}
			if len(r.ID) > 0 && r.Method == "" {
				p.pending = append(p.pending, m)
			}
		case <-time.After(sessionWait):
			p.t.Fatalf("no %s; stderr:\n%s", method, p.stderr)
		}
	}
}
