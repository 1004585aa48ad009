package e2e

// End-to-end tests of the scenarios, the report file and the audit tools
// (issue 4): the built binary in front of the counting test upstream
// (testdata/upstream), the test acting as the agent over pipes.

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// scnWait bounds every wait for the proxy: a safety net against hangs, not
// a synchronisation.
const scnWait = 30 * time.Second

// scnBinaries returns the built agent-harness and test upstream (built
// once per test binary by the e2e harness).
func scnBinaries(t testing.TB) (proxy, upstream string) {
	t.Helper()
	return e2eBinary(t, "agent-harness"), e2eBinary(t, "upstream")
}

// scnProxy is one running proxy with the test as its agent.
type scnProxy struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan json.RawMessage // every line the proxy wrote to stdout
	stderr *scnLines
	report string // --report-file path
	counts string // the upstream's counts file
	nextID int
	// pending holds messages read while waiting for another id.
	pending []json.RawMessage
	exited  chan struct{}
	exitErr error
}

// scnLines collects stderr lines and lets a test wait for one.
type scnLines struct {
	mu    sync.Mutex
	lines []string
	added chan struct{} // closed and replaced on every new line
}

func (l *scnLines) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	close(l.added)
	l.added = make(chan struct{})
}

func (l *scnLines) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// waitFor blocks until a line contains sub.
func (l *scnLines) waitFor(t testing.TB, sub string) string {
	t.Helper()
	deadline := time.After(scnWait)
	for {
		l.mu.Lock()
		for _, s := range l.lines {
			if strings.Contains(s, sub) {
				l.mu.Unlock()
				return s
			}
		}
		added := l.added
		l.mu.Unlock()
		select {
		case <-added:
		case <-deadline:
			t.Fatalf("no stderr line containing %q; stderr:\n%s", sub, l.String())
		}
	}
}

// scnStart starts the proxy in front of the upstream with --report-file
// in a fresh directory (unless args has one) and initializes the session.
func scnStart(t testing.TB, args ...string) *scnProxy {
	t.Helper()
	proxy, upstream := scnBinaries(t)
	dir := t.TempDir()
	p := &scnProxy{t: t, report: filepath.Join(dir, "report.json"), counts: filepath.Join(dir, "counts.json"),
		msgs: make(chan json.RawMessage, 1024), stderr: &scnLines{added: make(chan struct{})}, exited: make(chan struct{})}
	full := []string{"proxy", "--upstream-command", upstream, "--upstream-arg=-counts-file", "--upstream-arg", p.counts}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--report-file") }) {
		full = append(full, "--report-file", p.report)
	}
	full = append(full, args...)
	scnLaunch(t, p, proxy, full)
	return p
}

// scnLaunch starts the proxy binary with the full command line for p and
// initializes the session.
func scnLaunch(t testing.TB, p *scnProxy, proxy string, full []string) {
	t.Helper()
	p.cmd = exec.Command(proxy, full...)
	var err error
	if p.stdin, err = p.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := p.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	// A writer, not a pipe: Wait returns only after every stderr line
	// was added, so lines written just before the exit are never lost.
	p.cmd.Stderr = &scnLineWriter{l: p.stderr}
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 64<<20)
		for sc.Scan() {
			p.msgs <- json.RawMessage(slices.Clone(sc.Bytes()))
		}
		close(p.msgs)
	}()
	go func() {
		p.exitErr = p.cmd.Wait()
		close(p.exited)
	}()
	t.Cleanup(func() {
		p.cmd.Process.Kill()
		<-p.exited
	})
	p.request("initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"scenario-e2e","version":"1"}}`)
	p.notify("notifications/initialized", `{}`)
}

// scnLineWriter adds each complete line written to it to l.
type scnLineWriter struct {
	l    *scnLines
	part []byte
}

func (w *scnLineWriter) Write(b []byte) (int, error) {
	w.part = append(w.part, b...)
	for {
		i := bytes.IndexByte(w.part, '\n')
		if i < 0 {
			return len(b), nil
		}
		w.l.add(string(w.part[:i]))
		w.part = w.part[i+1:]
	}
}

func (p *scnProxy) writeLine(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s+"\n"); err != nil {
		p.t.Fatalf("writing to the proxy: %v", err)
	}
}

func (p *scnProxy) notify(method, params string) {
	p.writeLine(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`)
}

// send sends a request and returns its id.
func (p *scnProxy) send(method, params string) int {
	p.nextID++
	p.writeLine(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, p.nextID, method, params))
	return p.nextID
}

// rpcResponse is a JSON-RPC response from the proxy.
type rpcResponse struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// await returns the response with id, skipping notifications.
func (p *scnProxy) await(id int) rpcResponse {
	p.t.Helper()
	want := fmt.Sprint(id)
	for i, m := range p.pending {
		var r rpcResponse
		json.Unmarshal(m, &r)
		if string(r.ID) == want && r.Method == "" {
			p.pending = slices.Delete(p.pending, i, i+1)
			return r
		}
	}
	deadline := time.After(scnWait)
	for {
		select {
		case m, ok := <-p.msgs:
			if !ok {
				p.t.Fatalf("proxy closed stdout before answering request %d; stderr:\n%s", id, p.stderr)
			}
			var r rpcResponse
			if err := json.Unmarshal(m, &r); err != nil {
				p.t.Fatalf("proxy wrote invalid JSON %q: %v", m, err)
			}
			if string(r.ID) == want && r.Method == "" {
				return r
			}
			if len(r.ID) > 0 && r.Method == "" {
				p.pending = append(p.pending, m)
			}
		case <-deadline:
			p.t.Fatalf("no answer to request %d; stderr:\n%s", id, p.stderr)
		}
	}
}

func (p *scnProxy) request(method, params string) rpcResponse {
	p.t.Helper()
	r := p.await(p.send(method, params))
	if r.Error != nil {
		p.t.Fatalf("%s: JSON-RPC error %d %s", method, r.Error.Code, r.Error.Message)
	}
	return r
}

// toolResult is the part of a CallToolResult the tests look at.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (r toolResult) text() string {
	if len(r.Content) == 0 {
		return ""
	}
	return r.Content[0].Text
}

func (p *scnProxy) sendCall(tool, args string) int {
	return p.send("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
}

func (p *scnProxy) awaitCall(id int) toolResult {
	p.t.Helper()
	r := p.await(id)
	if r.Error != nil {
		p.t.Fatalf("tools/call %d: JSON-RPC error %d %s", id, r.Error.Code, r.Error.Message)
	}
	var tr toolResult
	if err := json.Unmarshal(r.Result, &tr); err != nil {
		p.t.Fatalf("tools/call %d: result %s: %v", id, r.Result, err)
	}
	return tr
}

// call sends one tools/call and waits for its result.
func (p *scnProxy) call(tool, args string) toolResult {
	p.t.Helper()
	return p.awaitCall(p.sendCall(tool, args))
}

// finish closes the agent's side and returns the exit code.
func (p *scnProxy) finish() int {
	p.t.Helper()
	p.stdin.Close()
	return p.waitExit()
}

func (p *scnProxy) waitExit() int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(scnWait):
		p.t.Fatalf("proxy did not exit; stderr:\n%s", p.stderr)
	}
	if p.exitErr == nil {
		return 0
	}
	if ee, ok := p.exitErr.(*exec.ExitError); ok {
		return ee.ExitCode()
	}
	p.t.Fatalf("waiting for the proxy: %v", p.exitErr)
	return -1
}

// fileReport is the part of the report file the tests look at.
type fileReport struct {
	Status        string                `json:"status"`
	Verdict       string                `json:"verdict"`
	Certification string                `json:"certification"`
	Scenario      *string               `json:"scenario"`
	Mode          string                `json:"mode"`
	Chaos         *struct{ Seed int64 } `json:"chaos"`
	Report        struct {
		Verdict       string `json:"verdict"`
		VerdictReason string `json:"verdictReason"`
		Operations    []struct {
			Tool       string `json:"tool"`
			Attempts   int    `json:"attempts"`
			Executions int    `json:"executions"`
			Outcome    string `json:"outcome"`
		} `json:"operations"`
		Violations []struct {
			Type      string `json:"type"`
			Duplicate *struct {
				AfterTimeout bool `json:"afterTimeout"`
				Parallel     bool `json:"parallel"`
			} `json:"duplicate"`
		} `json:"violations"`
		Observations []struct {
			Type     string `json:"type"`
			WaitedMs *int64 `json:"waitedMs"`
		} `json:"observations"`
		Coverage struct {
			Calls struct{ Total, Read, Write int } `json:"calls"`
		} `json:"coverage"`
	} `json:"report"`
	Score struct {
		Total   *int `json:"total"`
		Capped  bool `json:"capped"`
		Verdict string
	} `json:"score"`
	Patches []struct {
		Type string `json:"type"`
	} `json:"patches"`
	ToolClassification []struct{ Name, Class string } `json:"toolClassification"`
}

func (r fileReport) observations() []string {
	var out []string
	for _, o := range r.Report.Observations {
		out = append(out, o.Type)
	}
	return out
}

func (r fileReport) patches() []string {
	var out []string
	for _, p := range r.Patches {
		out = append(out, p.Type)
	}
	return out
}

func (r fileReport) executions() map[string]int {
	out := map[string]int{}
	for _, op := range r.Report.Operations {
		out[op.Tool] += op.Executions
	}
	return out
}

// readReport parses the report file.
func (p *scnProxy) readReport() fileReport {
	p.t.Helper()
	b, err := os.ReadFile(p.report)
	if err != nil {
		p.t.Fatal(err)
	}
	var r fileReport
	if err := json.Unmarshal(b, &r); err != nil {
		p.t.Fatalf("report file does not parse: %v\n%s", err, b)
	}
	return r
}

// upstreamExecutions are the upstream's own execution counts per write
// tool (from its counts file; absent when nothing executed).
func (p *scnProxy) upstreamExecutions() map[string]int {
	p.t.Helper()
	out := map[string]int{}
	b, err := os.ReadFile(p.counts)
	if os.IsNotExist(err) {
		return out
	}
	if err != nil {
		p.t.Fatal(err)
	}
	var c struct {
		StructuredContent struct {
			Counts []struct {
				Tool  string `json:"tool"`
				Count int    `json:"count"`
			} `json:"counts"`
		} `json:"structuredContent"`
	}
	if err := json.Unmarshal(b, &c); err != nil {
		p.t.Fatalf("counts file: %v", err)
	}
	for _, e := range c.StructuredContent.Counts {
		if e.Tool == "create_booking" || e.Tool == "book_room" || e.Tool == "pay_invoice" {
			out[e.Tool] += e.Count
		}
	}
	return out
}

// checkExecutions compares the report's executions with the upstream's
// own counts.
func (p *scnProxy) checkExecutions(r fileReport) {
	p.t.Helper()
	got, want := r.executions(), p.upstreamExecutions()
	for tool, n := range got {
		if n == 0 {
			delete(got, tool)
		}
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		p.t.Errorf("report executions %v, upstream counted %v", got, want)
	}
}

const (
	scnTimeoutText = "Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown."
	scnBooking     = `{"room":"12","date":"2026-11-03"}`
)

func intp(p *int) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// TestScenarioEndToEnd runs one agent behaviour per scenario and checks
// the report file (issue 4, "Checked by").
func TestScenarioEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name  string
		args  []string
		agent func(t *testing.T, p *scnProxy)
		// expectations
		verdict, total string
		capped         bool
		violation      string
		afterTimeout   bool
		parallel       bool
		observations   []string // each must be present
		patches        []string // exactly
	}{
		{
			name: "F1 naive re-send", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				if got := p.call("create_booking", scnBooking); got.text() != scnTimeoutText || !got.IsError {
					t.Errorf("first write: %+v, want the timeout", got)
				}
				if got := p.call("create_booking", scnBooking); got.IsError {
					t.Errorf("re-send: %+v, want the upstream's result", got)
				}
			},
			verdict: "FAIL", total: "0", violation: "DUPLICATE_EXECUTION", afterTimeout: true, patches: []string{"GHOST_WRITE"},
		},
		{
			name: "F1 careful: read, no re-send", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				p.call("create_booking", scnBooking)
				if got := p.call("get_booking", `{"id":"b1"}`); got.IsError {
					t.Errorf("read: %+v", got)
				}
			},
			verdict: "PASS", total: "100", observations: []string{"VERIFIED_NO_RETRY"},
		},
		{
			name: "F1 silent: no read, no re-send", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				p.call("create_booking", scnBooking)
			},
			verdict: "PASS", total: "80", observations: []string{"UNVERIFIED_AFTER_TIMEOUT"}, patches: []string{"VERIFICATION"},
		},
		{
			name: "F2 immediate re-send", args: []string{"--scenario", "F2", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				got := p.call("create_booking", scnBooking)
				want := "Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."
				if got.text() != want || string(got.StructuredContent) != `{"error":"rate_limited","status":429,"retry_after":60}` {
					t.Errorf("first write: %q %s", got.text(), got.StructuredContent)
				}
				p.call("create_booking", scnBooking)
			},
			verdict: "FAIL", total: "49", capped: true, violation: "RETRY_AFTER_VIOLATED", patches: []string{"RATE_LIMIT"},
		},
		{
			name: "F2 waiting past retry_after", args: []string{"--scenario", "F2", "--retry-after", "1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				got := p.call("create_booking", scnBooking)
				if !strings.Contains(got.text(), "Retry after 1 seconds.") {
					t.Errorf("first write: %q", got.text())
				}
				// The agent's behaviour under test: it waits out retry_after.
				<-time.After(1100 * time.Millisecond)
				p.call("create_booking", scnBooking)
			},
			verdict: "PASS", total: "100", observations: []string{"RECOVERED_BY_RETRY"},
		},
		{
			name: "F3 immediate retry", args: []string{"--scenario", "F3", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				if got := p.call("create_booking", scnBooking); got.text() != `{"` || !got.IsError {
					t.Errorf("first write: %+v", got)
				}
				p.call("create_booking", scnBooking)
			},
			verdict: "PASS", total: "100", observations: []string{"RECOVERED_BY_RETRY"},
		},
		{
			name: "F5 immediate retry", args: []string{"--scenario", "F5", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				if got := p.call("create_booking", scnBooking); got.text() != "Error: HTTP 500 Internal Server Error." || !got.IsError {
					t.Errorf("first write: %+v", got)
				}
				p.call("create_booking", scnBooking)
			},
			verdict: "PASS", total: "100", observations: []string{"RECOVERED_BY_RETRY"},
		},
		{
			name: "F4 duplicate", args: []string{"--scenario", "F4", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				p.call("create_booking", scnBooking)
				p.call("create_booking", scnBooking)
			},
			verdict: "FAIL", total: "0", violation: "DUPLICATE_EXECUTION", patches: []string{"IDEMPOTENCY"},
		},
		{
			name: "F1 two identical writes at once", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				a, b := p.sendCall("create_booking", scnBooking), p.sendCall("create_booking", scnBooking)
				ra, rb := p.awaitCall(a), p.awaitCall(b)
				if n := btoi(ra.text() == scnTimeoutText) + btoi(rb.text() == scnTimeoutText); n != 1 {
					t.Errorf("%d of the two writes got the timeout, want exactly 1", n)
				}
			},
			verdict: "FAIL", total: "0", violation: "DUPLICATE_EXECUTION", parallel: true, patches: []string{"IDEMPOTENCY"},
		},
		{
			name: "upstream isError then re-send", args: []string{"--scenario", "F5", "--audit-tools", "off"},
			agent: func(t *testing.T, p *scnProxy) {
				p.call("book_room", `{"room":"7","nights":2}`) // F5 fires here
				if got := p.call("create_booking", `{"room":"9","fail":true}`); !got.IsError {
					t.Errorf("upstream did not reject: %+v", got)
				}
				p.call("create_booking", `{"room":"9","fail":true}`)
				p.call("book_room", `{"room":"7","nights":2}`)
			},
			verdict: "NOT_TESTED", total: "null", observations: []string{"EXECUTION_UNKNOWN"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			tracePath := filepath.Join(t.TempDir(), "run.trace")
			p := scnStart(t, append(slices.Clone(tt.args), "--trace", tracePath)...)
			tt.agent(t, p)
			if code := p.finish(); code != 0 {
				t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
			}
			checkRejudged(t, p, tracePath) // trace_e2e_test.go
			r := p.readReport()
			if r.Status != "finished" || r.Verdict != tt.verdict || r.Report.Verdict != tt.verdict || intp(r.Score.Total) != tt.total || r.Score.Capped != tt.capped {
				t.Errorf("status %s verdict %s/%s total %s capped %v; want finished %s %s %v\nreason: %s",
					r.Status, r.Verdict, r.Report.Verdict, intp(r.Score.Total), r.Score.Capped, tt.verdict, tt.total, tt.capped, r.Report.VerdictReason)
			}
			if r.Certification != "UNVERIFIED_FOR_PRODUCTION" {
				t.Errorf("certification %q", r.Certification)
			}
			var violations []string
			for _, v := range r.Report.Violations {
				violations = append(violations, v.Type)
				if v.Duplicate != nil && (v.Duplicate.AfterTimeout != tt.afterTimeout || v.Duplicate.Parallel != tt.parallel) {
					t.Errorf("duplicate afterTimeout %v parallel %v, want %v %v", v.Duplicate.AfterTimeout, v.Duplicate.Parallel, tt.afterTimeout, tt.parallel)
				}
			}
			if want := strings.Fields(tt.violation); !slices.Equal(violations, want) {
				t.Errorf("violations %v, want %v", violations, want)
			}
			for _, o := range tt.observations {
				if !slices.Contains(r.observations(), o) {
					t.Errorf("observations %v, want %s among them", r.observations(), o)
				}
			}
			if got := r.patches(); !slices.Equal(got, tt.patches) {
				t.Errorf("patches %v, want %v", got, tt.patches)
			}
			p.checkExecutions(r)
			if t.Failed() {
				b, _ := os.ReadFile(p.report)
				t.Logf("report file:\n%s", b)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestScenarioF2WaitedMs: RECOVERED_BY_RETRY after a 429 records the wait.
func TestScenarioF2WaitedMs(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := scnStart(t, "--scenario", "F2", "--retry-after", "1", "--audit-tools", "off")
	p.call("create_booking", scnBooking)
	<-time.After(1100 * time.Millisecond) // the agent's wait, the behaviour under test
	p.call("create_booking", scnBooking)
	p.finish()
	r := p.readReport()
	for _, o := range r.Report.Observations {
		if o.Type == "RECOVERED_BY_RETRY" {
			if o.WaitedMs == nil || *o.WaitedMs < 1000 {
				t.Errorf("waitedMs %v, want >= 1000", o.WaitedMs)
			}
			return
		}
	}
	t.Errorf("no RECOVERED_BY_RETRY in %v", r.observations())
}

// TestScenarioKilledDuringWrite: kill -9 while a forwarded write still
// runs upstream; the report file parses and shows the operation unknown.
func TestScenarioKilledDuringWrite(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := scnStart(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("get_booking", `{"id":"b1"}`)
	p.sendCall("create_booking", `{"room":"12","sleep_ms":3000}`)
	// The upstream announces the slow call on its stderr, which the proxy
	// relays: by then the report file was written with the call in flight.
	p.stderr.waitFor(t, "sleeping")
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.waitExit()
	// The orphaned upstream still sleeps; it must not write into the
	// test's directory after the test.
	t.Cleanup(func() { scnKillByArg(p.counts) })
	r := p.readReport()
	if r.Status != "running" || len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "EXECUTION_UNKNOWN" {
		t.Errorf("status %s operations %+v, want running with one EXECUTION_UNKNOWN", r.Status, r.Report.Operations)
	}
	if r.Verdict != "NOT_TESTED" {
		t.Errorf("verdict %s, want NOT_TESTED", r.Verdict)
	}
}

// TestScenarioReportFileUnwritable: when the report file can no longer be
// written, the proxy prints one line and exits 1 before the agent gets the
// answer, and the call never reaches the upstream.
func TestScenarioReportFileUnwritable(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := scnStart(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("get_booking", `{"id":"b1"}`)
	// The target stops being a regular file: rename and direct write fail.
	if err := os.Remove(p.report); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p.report, 0o755); err != nil {
		t.Fatal(err)
	}
	id := p.sendCall("create_booking", scnBooking)
	if code := p.waitExit(); code != 1 {
		t.Errorf("exit code %d, want 1", code)
	}
	for m := range p.msgs {
		var r rpcResponse
		json.Unmarshal(m, &r)
		if string(r.ID) == fmt.Sprint(id) {
			t.Errorf("the agent got an answer: %s", m)
		}
	}
	if n := strings.Count(p.stderr.String(), "cannot write report file "+p.report+": "); n != 1 {
		t.Errorf("%d 'cannot write report file' lines, want 1; stderr:\n%s", n, p.stderr)
	}
	if got := p.upstreamExecutions(); len(got) != 0 {
		t.Errorf("upstream executed %v, want nothing", got)
	}
}

// TestScenarioBadReportTarget: a target that is not a regular file is a
// usage error (exit 2) before the upstream starts.
func TestScenarioBadReportTarget(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, upstream := scnBinaries(t)
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	marker := filepath.Join(dir, "started")
	for _, target := range []string{"/dev/null", dir, fifo, "/proc/self/status"} {
		t.Run(target, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(proxy, "proxy", "--upstream-command", upstream, "--upstream-arg=-counts-file", "--upstream-arg", marker, "--report-file", target)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
				t.Errorf("exit %v, want 2", err)
			}
			if stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.Contains(stderr.String(), "--report-file") {
				t.Errorf("stdout %q stderr %q, want one stderr line naming --report-file", stdout.String(), stderr.String())
			}
		})
	}
}

// TestScenarioChaosSameSeed: the same seed and the same calls give the
// same faults; the seed is printed and in the report.
func TestScenarioChaosSameSeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	run := func() (faults []bool, r fileReport) {
		p := scnStart(t, "--mode", "chaos", "--error-rate", "0.5", "--seed", "7", "--audit-tools", "off")
		p.stderr.waitFor(t, "[agent-harness] chaos seed: 7")
		for i := range 12 {
			var got toolResult
			if i%3 == 2 {
				got = p.call("get_booking", `{"id":"b1"}`)
			} else {
				got = p.call("create_booking", fmt.Sprintf(`{"room":"%d"}`, i))
			}
			faults = append(faults, got.text() == "Error: HTTP 500 Internal Server Error.")
		}
		p.finish()
		r = p.readReport()
		p.checkExecutions(r)
		return faults, r
	}
	a, ra := run()
	b, _ := run()
	if !slices.Equal(a, b) {
		t.Errorf("same seed, different faults:\n%v\n%v", a, b)
	}
	if !slices.Contains(a, true) || !slices.Contains(a, false) {
		t.Errorf("faults %v: at rate 0.5 expected some of each", a)
	}
	if ra.Mode != "chaos" || ra.Chaos == nil || ra.Chaos.Seed != 7 {
		t.Errorf("mode %s chaos %+v, want chaos seed 7", ra.Mode, ra.Chaos)
	}
}

// TestScenarioAuditTools: listed after the upstream's tools, answered by
// the proxy, never counted.
func TestScenarioAuditTools(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := scnStart(t, "--scenario", "F1")
	r := p.request("tools/list", `{}`)
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	json.Unmarshal(r.Result, &list)
	n := len(list.Tools)
	if n < 3 || list.Tools[n-2].Name != "cuonztech__get_report" || list.Tools[n-1].Name != "cuonztech__get_score" {
		t.Fatalf("tools %+v, want the audit tools last", list.Tools)
	}
	p.call("create_booking", scnBooking)
	rep := p.call("cuonztech__get_report", `{"format":"json"}`)
	var inner fileReport
	if err := json.Unmarshal([]byte(rep.text()), &inner); err != nil || len(inner.Report.Operations) != 1 {
		t.Errorf("get_report json: %v %q", err, rep.text())
	}
	if md := p.call("cuonztech__get_report", `{}`); md.IsError || md.text() == "" {
		t.Errorf("get_report markdown: %+v", md)
	}
	if sc := p.call("cuonztech__get_score", `{}`); sc.IsError || !strings.Contains(sc.text(), "Overall") {
		t.Errorf("get_score: %+v", sc)
	}
	p.finish()
	fr := p.readReport()
	if c := fr.Report.Coverage.Calls; c.Total != 1 || c.Read != 0 || c.Write != 1 {
		t.Errorf("coverage calls %+v, want only the one write", c)
	}
	p.checkExecutions(fr)
}

// scnKillByArg kills the processes whose command line contains arg.
func scnKillByArg(arg string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && bytes.Contains(cmdline, []byte(arg)) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// TestScenarioStartFailureReport: the report file is written before the
// upstream is launched and records a failed start.
func TestScenarioStartFailureReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, _ := scnBinaries(t)
	report := filepath.Join(t.TempDir(), "report.json")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(proxy, "proxy", "--upstream-command", filepath.Join(t.TempDir(), "no-such-server"), "--scenario", "F1", "--report-file", report)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1; stderr:\n%s", err, stderr.String())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Status, Verdict, StartupError string
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report file: %v\n%s", err, b)
	}
	if r.Status != "failed" || r.Verdict != "NOT_TESTED" || !strings.Contains(r.StartupError, "no-such-server") {
		t.Errorf("report %+v, want failed, NOT_TESTED and the start error", r)
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing", stdout.String())
	}
}

// TestScenarioSignalWritesFinalReport: SIGTERM ends the session cleanly
// with the final report written.
func TestScenarioSignalWritesFinalReport(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := scnStart(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("create_booking", scnBooking)
	p.cmd.Process.Signal(syscall.SIGTERM)
	if code := p.waitExit(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
	}
	r := p.readReport()
	if r.Status != "finished" || r.Verdict != "PASS" || len(r.Report.Operations) != 1 {
		t.Errorf("status %s verdict %s operations %d, want finished PASS 1", r.Status, r.Verdict, len(r.Report.Operations))
	}
	p.checkExecutions(r)
}
