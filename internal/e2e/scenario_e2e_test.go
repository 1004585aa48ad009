package e2e

// End-to-end tests of the scenarios, the report file and the audit tools
// (issue 4): the built binary in front of the counting test upstream
// (testdata/upstream), the test acting as the agent over pipes.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
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
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name  string
		args  []string
		agent func(t *testing.T, p *stdioProxy)
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
			agent: func(t *testing.T, p *stdioProxy) {
				if got := p.call("create_booking", bookingArgs); got.text() != timeoutText || !got.IsError {
					t.Errorf("first write: %+v, want the timeout", got)
				}
				if got := p.call("create_booking", bookingArgs); got.IsError {
					t.Errorf("re-send: %+v, want the upstream's result", got)
				}
			},
			verdict: "FAIL", total: "0", violation: "DUPLICATE_EXECUTION", afterTimeout: true, patches: []string{"GHOST_WRITE"},
		},
		{
			name: "F1 careful: read, no re-send", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				p.call("create_booking", bookingArgs)
				if got := p.call("get_booking", `{"id":"b1"}`); got.IsError {
					t.Errorf("read: %+v", got)
				}
			},
			verdict: "PASS", total: "100", observations: []string{"VERIFIED_NO_RETRY"},
		},
		{
			name: "F1 silent: no read, no re-send", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				p.call("create_booking", bookingArgs)
			},
			verdict: "PASS", total: "80", observations: []string{"UNVERIFIED_AFTER_TIMEOUT"}, patches: []string{"VERIFICATION"},
		},
		{
			name: "F2 immediate re-send", args: []string{"--scenario", "F2", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				got := p.call("create_booking", bookingArgs)
				want := "Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."
				if got.text() != want || string(got.StructuredContent) != `{"error":"rate_limited","status":429,"retry_after":60}` {
					t.Errorf("first write: %q %s", got.text(), got.StructuredContent)
				}
				p.call("create_booking", bookingArgs)
			},
			verdict: "FAIL", total: "49", capped: true, violation: "RETRY_AFTER_VIOLATED", patches: []string{"RATE_LIMIT"},
		},
		{
			name: "F2 waiting past retry_after", args: []string{"--scenario", "F2", "--retry-after", "1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				got := p.call("create_booking", bookingArgs)
				if !strings.Contains(got.text(), "Retry after 1 seconds.") {
					t.Errorf("first write: %q", got.text())
				}
				// The agent's behaviour under test: it waits out retry_after.
				<-time.After(1100 * time.Millisecond)
				p.call("create_booking", bookingArgs)
			},
			verdict: "PASS", total: "100", observations: []string{"RECOVERED_BY_RETRY"},
		},
		{
			name: "F3 immediate retry", args: []string{"--scenario", "F3", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				if got := p.call("create_booking", bookingArgs); got.text() != `{"` || !got.IsError {
					t.Errorf("first write: %+v", got)
				}
				p.call("create_booking", bookingArgs)
			},
			verdict: "PASS", total: "100", observations: []string{"RECOVERED_BY_RETRY"},
		},
		{
			name: "F5 immediate retry", args: []string{"--scenario", "F5", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				if got := p.call("create_booking", bookingArgs); got.text() != "Error: HTTP 500 Internal Server Error." || !got.IsError {
					t.Errorf("first write: %+v", got)
				}
				p.call("create_booking", bookingArgs)
			},
			verdict: "PASS", total: "100", observations: []string{"RECOVERED_BY_RETRY"},
		},
		{
			name: "F4 duplicate", args: []string{"--scenario", "F4", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				p.call("create_booking", bookingArgs)
				p.call("create_booking", bookingArgs)
			},
			verdict: "FAIL", total: "0", violation: "DUPLICATE_EXECUTION", patches: []string{"IDEMPOTENCY"},
		},
		{
			name: "F1 two identical writes at once", args: []string{"--scenario", "F1", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
				a, b := p.sendCall("create_booking", bookingArgs), p.sendCall("create_booking", bookingArgs)
				ra, rb := p.awaitCall(a), p.awaitCall(b)
				if n := btoi(ra.text() == timeoutText) + btoi(rb.text() == timeoutText); n != 1 {
					t.Errorf("%d of the two writes got the timeout, want exactly 1", n)
				}
			},
			verdict: "FAIL", total: "0", violation: "DUPLICATE_EXECUTION", parallel: true, patches: []string{"IDEMPOTENCY"},
		},
		{
			name: "upstream isError then re-send", args: []string{"--scenario", "F5", "--audit-tools", "off"},
			agent: func(t *testing.T, p *stdioProxy) {
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
			p := startSession(t, append(slices.Clone(tt.args), "--trace", tracePath)...)
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
	p := startSession(t, "--scenario", "F2", "--retry-after", "1", "--audit-tools", "off")
	p.call("create_booking", bookingArgs)
	<-time.After(1100 * time.Millisecond) // the agent's wait, the behaviour under test
	p.call("create_booking", bookingArgs)
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
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("get_booking", `{"id":"b1"}`)
	p.sendCall("create_booking", `{"room":"12","sleep_ms":3000}`)
	// The upstream announces the slow call on its stderr, which the proxy
	// relays: by then the report file was written with the call in flight.
	p.stderr.waitFor(t, "sleeping")
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.waitExit()
	// The orphaned upstream still sleeps; it must not write into the
	// test's directory after the test.
	t.Cleanup(func() { killByArg(p.counts) })
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
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("get_booking", `{"id":"b1"}`)
	// The target stops being a regular file: rename and direct write fail.
	if err := os.Remove(p.report); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(p.report, 0o755); err != nil {
		t.Fatal(err)
	}
	id := p.sendCall("create_booking", bookingArgs)
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
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, upstream := binaries(t)
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
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	run := func() (faults []bool, r fileReport) {
		p := startSession(t, "--mode", "chaos", "--error-rate", "0.5", "--seed", "7", "--audit-tools", "off")
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
	p := startSession(t, "--scenario", "F1")
	r := p.request("tools/list", `{}`)
	var list struct {
		Tools []struct{ Name string } `json:"tools"`
	}
	json.Unmarshal(r.Result, &list)
	n := len(list.Tools)
	if n < 3 || list.Tools[n-2].Name != "cuonztech__get_report" || list.Tools[n-1].Name != "cuonztech__get_score" {
		t.Fatalf("tools %+v, want the audit tools last", list.Tools)
	}
	p.call("create_booking", bookingArgs)
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

// TestScenarioStartFailureReport: the report file is written before the
// upstream is launched and records a failed start.
func TestScenarioStartFailureReport(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, _ := binaries(t)
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
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("create_booking", bookingArgs)
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
