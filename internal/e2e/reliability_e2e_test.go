package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The upstream sends 20,000 notifications during one call: every one
// reaches the agent, in order, before the call's answer.
func TestReliabilityManyNotifications(t *testing.T) {
	t.Parallel()
	const steps = 20000
	p := startProxy(t, nil, append(upstreamFlags(t), "--audit-tools", "off")...)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"progress","arguments":{"steps":20000},"_meta":{"progressToken":"tok"}}}`)
	before, resp := p.until("2")
	n := 0
	for _, m := range before {
		var note struct {
			Method string `json:"method"`
			Params struct {
				Progress int `json:"progress"`
			} `json:"params"`
		}
		if json.Unmarshal(m, &note) != nil || note.Method != "notifications/progress" {
			continue
		}
		n++
		if note.Params.Progress != n {
			t.Fatalf("progress notification %d says %d: out of order or lost", n, note.Params.Progress)
		}
	}
	if n != steps {
		t.Errorf("%d progress notifications reached the agent, want %d", n, steps)
	}
	if !bytes.Contains(resp, []byte(`20000 steps`)) {
		t.Errorf("answer %s", resp)
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
}

// 200 calls in flight at once, answered by the upstream out of order
// (each after its own delay): every call gets exactly one answer with its
// own id, and the report counts what the upstream executed.
func TestReliabilityCallsAnsweredOutOfOrder(t *testing.T) {
	t.Parallel()
	const calls = 200
	dir := t.TempDir()
	report, counts := filepath.Join(dir, "report.json"), filepath.Join(dir, "counts.json")
	p := startProxy(t, nil, append(upstreamFlags(t, "-counts-file", counts), "--audit-tools", "off", "--report-file", report)...)
	p.initialize()
	var batch strings.Builder
	for i := range calls {
		fmt.Fprintf(&batch, `{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"book_room","arguments":{"room":"r%d","sleep_ms":%d}}}`+"\n",
			100+i, i, (i*37)%60)
	}
	p.send(strings.TrimSuffix(batch.String(), "\n"))
	seen := map[string]int{}
	order := make([]string, 0, calls)
	for len(order) < calls {
		var r struct {
			ID     json.RawMessage `json:"id"`
			Result *struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"result"`
		}
		m := p.next()
		if err := json.Unmarshal(m, &r); err != nil || r.ID == nil {
			continue // a notification
		}
		if r.Result == nil || len(r.Result.Content) == 0 || r.Result.Content[0].Text != "book_room done" {
			t.Fatalf("answer %s", m)
		}
		seen[string(r.ID)]++
		order = append(order, string(r.ID))
	}
	for i := range calls {
		if id := fmt.Sprint(100 + i); seen[id] != 1 {
			t.Errorf("call %s answered %d times", id, seen[id])
		}
	}
	inOrder := true
	for i, id := range order {
		inOrder = inOrder && id == fmt.Sprint(100+i)
	}
	if inOrder {
		t.Errorf("the answers came in the order of the calls: the test did not exercise out-of-order answers")
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	var rep struct {
		Report struct {
			Operations []struct{ Executions int } `json:"operations"`
		} `json:"report"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	total := 0
	for _, op := range rep.Report.Operations {
		if op.Executions != 1 {
			t.Errorf("an operation has %d executions, want 1", op.Executions)
		}
		total += op.Executions
	}
	if len(rep.Report.Operations) != calls || total != calls {
		t.Errorf("report: %d operations, %d executions; want %d each", len(rep.Report.Operations), total, calls)
	}
}

// A 100 MB argument and a 100 MB result pass through byte-exact; the
// write is judged.
func TestReliability100MBMessages(t *testing.T) {
	if testing.Short() {
		t.Skip("100 MB messages: not with -short")
	}
	t.Parallel() // about 30 s under -race: the other tests run meanwhile
	const size = 100 << 20
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	// The plain build: the race detector's instrumentation of the scanner
	// and the judge would make 200 MB of JSON take half a minute, and this
	// test is about sizes, not about races (the other e2e tests run the
	// race build).
	p := startPeer(t, nil, built(t, "agent-harness-plain"),
		append([]string{"proxy"}, append(upstreamFlags(t), "--audit-tools", "off", "--report-file", report)...)...)
	p.initialize()
	room := strings.Repeat("r", size)
	p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"` + room + `"}}}`)
	if _, resp := p.until("2"); !bytes.Contains(resp, []byte(`"create_booking done"`)) {
		t.Fatalf("answer to the 100 MB call: %.200s", resp)
	}
	p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"big_result","arguments":{"bytes":%d}}}`, size))
	_, resp := p.until("3")
	var r struct {
		Result struct {
			Content []struct{ Text string } `json:"content"`
		} `json:"result"`
	}
	if err := json.Unmarshal(resp, &r); err != nil || len(r.Result.Content) != 1 || len(r.Result.Content[0].Text) != size {
		t.Fatalf("100 MB result did not arrive whole (%d bytes, %v)", len(resp), err)
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	var rep struct {
		Report struct {
			Operations []struct {
				Tool       string `json:"tool"`
				Executions int    `json:"executions"`
			} `json:"operations"`
		} `json:"report"`
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Report.Operations) != 1 || rep.Report.Operations[0].Executions != 1 {
		t.Errorf("report operations %+v, want create_booking executed once", rep.Report.Operations)
	}
}

// A lenient upstream executes calls of a tool it has not listed; the
// proxy forwards them unjudged. When a later listing shows that tool is a
// write, the run is NOT_TESTED (its calls may have been a double
// execution), and the verdict reason says why.
func TestReliabilityUnlistedWriteLaterListed(t *testing.T) {
	t.Parallel()
	p := startSession(t, "--audit-tools", "off", "--upstream-arg=-lenient-unlisted")
	p.call("create_booking", bookingArgs)
	for range 2 {
		if r := p.call("create_refund", `{"booking":"b1"}`); r.text() != "create_refund done" {
			t.Fatalf("unlisted call answered %q", r.text())
		}
	}
	p.call("add_tool", `{"name":"create_refund"}`)
	// A call of the newly listed tool waits for the proxy's re-listing.
	p.call("create_refund", `{"booking":"b2"}`)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	r := p.readReport()
	if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, `Tool "create_refund" was called before the upstream listed it`) {
		t.Errorf("verdict %s (%s), want NOT_TESTED naming create_refund", r.Verdict, r.Report.VerdictReason)
	}
}

// Calls of a tool that stays unlisted are named in the verdict reason.
func TestReliabilityUnlistedCallsNamed(t *testing.T) {
	t.Parallel()
	p := startSession(t, "--audit-tools", "off", "--upstream-arg=-lenient-unlisted")
	p.call("create_booking", bookingArgs)
	p.call("sync_ledger", `{}`)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	r := p.readReport()
	if r.Verdict != "PASS" || !strings.Contains(r.Report.VerdictReason, `1 call(s) of tools the upstream did not list ("sync_ledger") were forwarded without being judged`) {
		t.Errorf("verdict %s (%s), want PASS naming sync_ledger", r.Verdict, r.Report.VerdictReason)
	}
}
