package e2e

// End-to-end tests of the report file's durability (docs/report.md): written in
// place when atomic replacement is impossible, leftovers of killed proxies.

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestReportFileInPlace: a report file whose name leaves no room for a
// temporary name (NAME_MAX), like a bind-mounted file or a read-only
// directory, cannot be replaced atomically: one WARNING line, and the file
// is written in place — a valid report after every step, after a kill -9
// too.
func TestReportFileInPlace(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	report := filepath.Join(t.TempDir(), strings.Repeat("r", 240)+".json")
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off", "--report-file", report)
	p.report = report
	p.call("get_booking", `{"id":"b1"}`)
	if r := p.readReport(); r.Status != "running" || r.Report.Coverage.Calls.Read != 1 {
		t.Errorf("status %s, calls %+v; want running with the read", r.Status, r.Report.Coverage.Calls)
	}
	p.sendCall("create_booking", `{"room":"12","sleep_ms":3000}`)
	p.stderr.waitFor(t, "sleeping")
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.waitExit()
	r := p.readReport()
	if r.Status != "running" || len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "EXECUTION_UNKNOWN" {
		t.Errorf("status %s operations %+v, want running with one EXECUTION_UNKNOWN", r.Status, r.Report.Operations)
	}
	want := "[agent-harness] WARNING: the report file " + report + " cannot be replaced atomically ("
	if n := strings.Count(p.stderr.String(), "WARNING: the report file"); n != 1 || !strings.Contains(p.stderr.String(), want) {
		t.Errorf("%d report file warnings, want one starting %q; stderr:\n%s", n, want, p.stderr)
	}
	if es, _ := os.ReadDir(filepath.Dir(report)); len(es) != 1 {
		t.Errorf("directory holds %d entries, want only the report", len(es))
	}
}

// TestReportFileStaleTempRemoved: at start, the proxy removes temporary
// files that killed proxies left beside the report file, and keeps those
// of processes that still run.
func TestReportFileStaleTempRemoved(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	// 99999999 is above every pid Linux can give (pid_max <= 2^22).
	stale := report + ".99999999.3kx9.tmp"
	live := report + "." + strconv.Itoa(os.Getpid()) + ".3kx9.tmp" // this test runs
	for _, f := range []string{stale, live} {
		if err := os.WriteFile(f, []byte(`{"status":"run`), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off", "--report-file", report)
	p.report = report
	if code := p.finish(); code != 0 {
		t.Fatalf("exit %d; stderr:\n%s", code, p.stderr)
	}
	if _, err := os.Lstat(stale); err == nil {
		t.Error("the dead proxy's temporary file is still there")
	}
	if _, err := os.Lstat(live); err != nil {
		t.Errorf("the live process's temporary file was removed: %v", err)
	}
	if r := p.readReport(); r.Status != "finished" {
		t.Errorf("status %s, want finished", r.Status)
	}
}
