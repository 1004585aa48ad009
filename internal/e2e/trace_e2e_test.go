package e2e

// End-to-end tests of --trace, agent-harness judge and agent-harness
// report (behaviour §7): traces recorded by the built proxy in front of the
// test upstream, judged again by the built binary.

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// traceLines reads a trace file's lines.
func traceLines(t testing.TB, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, l := range bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		var m map[string]any
		if err := json.Unmarshal(l, &m); err != nil {
			t.Fatalf("trace line %q: %v", l, err)
		}
		out = append(out, m)
	}
	return out
}

// TestTraceKeyFieldsFlip: after an F1 timeout the agent re-sends the
// booking with a new reference. Live, "ref" is an argument: another
// operation, PASS (OTHER_WRITE_AFTER_UNCERTAIN_ATTEMPT). Judged with
// --key-fields ref, it is the same operation executed twice: FAIL.
func TestTraceKeyFieldsFlip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "run.trace")
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off", "--trace", tr)
	p.call("create_booking", `{"room":"12","nights":2,"guest":"ada","ref":"r-1"}`)
	p.call("create_booking", `{"room":"12","nights":2,"guest":"ada","ref":"r-2"}`)
	p.finish()
	checkRejudged(t, p, tr)
	if v := p.readReport().Verdict; v != "PASS" {
		t.Fatalf("live verdict %s, want PASS", v)
	}
	r, b := rejudge(t, tr, "--key-fields", "ref")
	var f fileReport
	_ = json.Unmarshal(b, &f)
	if r.code != 1 || f.Verdict != "FAIL" || len(f.Report.Violations) != 1 || f.Report.Violations[0].Type != "DUPLICATE_EXECUTION" {
		t.Errorf("with --key-fields ref: exit %d verdict %s violations %+v; want 1 FAIL DUPLICATE_EXECUTION\n%s", r.code, f.Verdict, f.Report.Violations, b)
	}
}

// TestTraceReclassifyFlip: other classification flags re-classify from
// the recorded tool definitions: with create_booking a read tool, the same
// trace has no write operation and is NOT_TESTED.
func TestTraceReclassifyFlip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "run.trace")
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off", "--trace", tr)
	p.call("create_booking", bookingArgs)
	p.call("create_booking", bookingArgs)
	p.finish()
	checkRejudged(t, p, tr)
	r, b := rejudge(t, tr, "--read-tools", "create_booking")
	var f fileReport
	_ = json.Unmarshal(b, &f)
	if r.code != 3 || f.Verdict != "NOT_TESTED" || len(f.Report.Operations) != 0 {
		t.Errorf("with --read-tools create_booking: exit %d verdict %s ops %d, want 3 NOT_TESTED 0\n%s", r.code, f.Verdict, len(f.Report.Operations), b)
	}
	for _, c := range f.ToolClassification {
		if c.Name == "create_booking" && c.Class == "write" {
			t.Errorf("create_booking still a write: %+v", f.ToolClassification)
		}
	}
	if r := runHarness(t, "judge", tr, "--not-tested-ok", "--read-tools", "create_booking"); r.code != 0 {
		t.Errorf("--not-tested-ok: exit %d", r.code)
	}
}

// TestTraceDatesPluginFlip: recorded without a plugin, the re-sent booking
// with the date written differently is a possible duplicate (NOT_TESTED,
// SPEC §17.8); judged with the dates plugin it is a duplicate.
func TestTraceDatesPluginFlip(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "run.trace")
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off", "--trace", tr)
	p.call("create_booking", `{"room":"12","date":"2026-11-03"}`)
	p.call("create_booking", `{"room":"12","date":"03.11.2026"}`)
	r := p.finishReport()
	if r.Verdict != "NOT_TESTED" || !slices.Contains(r.observations(), "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS") {
		t.Fatalf("live verdict %s, observations %v, want NOT_TESTED with POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS", r.Verdict, r.observations())
	}
	checkRejudged(t, p, tr)
	run, b := rejudge(t, tr, "--plugin", buildPlugin(t, "./plugins/dates"), "--plugin-cache-dir", pluginCache(), pluginTimeout)
	var f fileReport
	_ = json.Unmarshal(b, &f)
	if run.code != 1 || f.Verdict != "FAIL" || len(f.Report.Operations) != 1 {
		t.Errorf("with dates: exit %d verdict %s ops %d, want 1 FAIL 1\nstderr: %s\n%s", run.code, f.Verdict, len(f.Report.Operations), run.stderr, b)
	}
}

// TestTraceHostilePluginRejudged: an equivalence plugin that fails on
// every call is disabled after two failures (--plugin-max-failures 2) and
// not asked for the third write. The trace records both failures and the
// disabling, so judging it again (the plugin loaded again, with the
// default limits) gives the live report: the same pluginFailures, verdict
// reason and operations; only status and the offline run's own plugin
// list differ.
func TestTraceHostilePluginRejudged(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "run.trace")
	args := append(proxyPluginFlags(t, "./internal/plugin/testdata/hostile"), hostileTimeout, "--plugin-max-failures", "2",
		"--write-tools", "create_booking", "--audit-tools", "off", "--trace", tr)
	p := startSession(t, args...)
	for _, room := range []string{"a", "b", "c"} {
		p.call("create_booking", `{"room":"`+room+`","do":"panic"}`)
	}
	r := p.finishReport()
	if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, `Plugin "hostile" failed (equiv_key create_booking: `) ||
		!strings.Contains(r.Report.VerdictReason, "and was disabled") {
		t.Fatalf("live verdict %s (%s), want NOT_TESTED naming the disabled plugin", r.Verdict, r.Report.VerdictReason)
	}
	var failures, disablings int
	for _, l := range traceLines(t, tr) {
		if l["type"] == "plugin-failure" && l["plugin"] == "hostile" {
			if l["disabled"] == true {
				disablings++
			} else {
				failures++
			}
		}
	}
	if failures != 2 || disablings != 1 {
		t.Errorf("trace has %d failures and %d disablings of hostile, want 2 and 1", failures, disablings)
	}
	live, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	run, offline := rejudge(t, tr, "--plugin-cache-dir", pluginCache())
	without := func(raw []byte) string {
		var m map[string]any
		if err := json.Unmarshal(raw, &m); err != nil {
			t.Fatalf("report does not parse: %v\n%s", err, raw)
		}
		delete(m, "status")
		delete(m, "plugins")
		b, _ := json.Marshal(m)
		return sortedJSON(t, b)
	}
	if a, b := without(live), without(offline); a != b {
		t.Errorf("re-judged report differs from the live one\nlive:    %s\noffline: %s", a, b)
	}
	if run.code != 3 {
		t.Errorf("judge exit %d, want 3 (NOT_TESTED); stderr: %s", run.code, run.stderr)
	}
}

// TestTraceKilledWithWriteInFlight: kill -9 while a forwarded write runs
// upstream. The trace is judged without error; the write is unknown.
func TestTraceKilledWithWriteInFlight(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "run.trace")
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off", "--trace", tr, "--report-interval", "1h")
	p.call("get_booking", `{"id":"b1"}`)
	p.sendCall("create_booking", `{"room":"12","sleep_ms":3000}`)
	p.stderr.waitFor(t, "sleeping") // forwarded: its lines are in the trace
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.waitExit()
	t.Cleanup(func() { killByArg(p.counts) })

	// A torn last line, as a kill in the middle of a write leaves it.
	f, err := os.OpenFile(tr, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"type":"answer","t":12.5,"session":1,"call":`)
	f.Close()

	r, b := rejudge(t, tr)
	var rep fileReport
	_ = json.Unmarshal(b, &rep)
	if r.code != 3 || rep.Verdict != "NOT_TESTED" {
		t.Errorf("exit %d verdict %s, want 3 NOT_TESTED\n%s", r.code, rep.Verdict, b)
	}
	if len(rep.Report.Operations) != 1 || rep.Report.Operations[0].Outcome != "EXECUTION_UNKNOWN" {
		t.Errorf("operations %+v, want create_booking EXECUTION_UNKNOWN", rep.Report.Operations)
	}
	if !strings.Contains(r.stderr, "incomplete") || !strings.Contains(r.stderr, "no end line") ||
		strings.Count(r.stderr, "WARNING") != 2 || strings.Count(r.stderr, "\n") != 2 {
		t.Errorf("stderr %q, want one warning about the torn line and one about the missing end", r.stderr)
	}
	if rep.Status != "interrupted" {
		t.Errorf("status %q, want interrupted", rep.Status)
	}
	// With --report-interval 1h the report file was not rewritten after
	// the start: the trace holds what happened.
	if live := p.readReport(); live.Status != "starting" && len(live.Report.Operations) != 0 {
		t.Errorf("report file %+v, want the state of the start", live)
	}
}

// TestTraceReportInterval: with --report-interval the report file is
// written at start and at exit, and the final one is what the trace
// re-judges to.
func TestTraceReportInterval(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	tr := filepath.Join(t.TempDir(), "run.trace")
	p := startSession(t, "--scenario", "F2", "--audit-tools", "off", "--trace", tr, "--report-interval", "1h")
	p.call("create_booking", bookingArgs)
	p.call("create_booking", bookingArgs)
	if r := p.readReport(); r.Report.Coverage.Calls.Total != 0 {
		t.Errorf("report file rewritten within the interval: %d calls", r.Report.Coverage.Calls.Total)
	}
	p.finish()
	if r := p.readReport(); r.Status != "finished" || r.Verdict != "FAIL" {
		t.Errorf("final report %s %s, want finished FAIL", r.Status, r.Verdict)
	}
	checkRejudged(t, p, tr)
	lines := traceLines(t, tr)
	if lines[0]["type"] != "header" || lines[0]["version"] != 2.0 {
		t.Errorf("header %v", lines[0])
	}
	var types []string
	for _, l := range lines[1:] {
		types = append(types, l["type"].(string))
	}
	want := "session tools call answer delivered call forwarded answer end"
	if got := strings.Join(types, " "); got != want {
		t.Errorf("line types %q, want %q", got, want)
	}
}

// TestTraceUsage: the flags' rules and the exit codes for bad input.
func TestTraceUsage(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.trace")
	os.WriteFile(empty, nil, 0o644)
	bad := filepath.Join(dir, "bad.trace")
	os.WriteFile(bad, []byte("{\"type\":\"header\",\"format\":\"agent-harness-trace\",\"version\":3}\n"), 0o644)
	notjson := filepath.Join(dir, "report.json")
	os.WriteFile(notjson, []byte(`{"campaign":true}`), 0o644)
	tests := []struct {
		args   []string
		code   int
		stderr string
	}{
		{[]string{"proxy", "--report-interval", "1s", "--", "true"}, 2, "flag --report-interval: only with --trace"},
		{[]string{"judge"}, 2, "no trace file"},
		{[]string{"judge", empty, "--key-feilds", "x"}, 2, `unknown flag --key-feilds (did you mean --key-fields?)`},
		{[]string{"judge", empty, "--retry-after"}, 2, "flag --retry-after needs a value"},
		{[]string{"judge", filepath.Join(dir, "missing")}, 2, "cannot read trace"},
		{[]string{"judge", bad}, 2, "trace format version 3 is not supported"},
		{[]string{"judge", notjson}, 2, "not an agent-harness trace"},
		{[]string{"judge", empty}, 3, "no end line"},
		// No end line: an interrupted run, never exit 0 (issue 17).
		{[]string{"judge", empty, "--not-tested-ok"}, 3, "no end line"},
		{[]string{"report", notjson}, 2, "neither a run report nor a campaign file"},
		{[]string{"report", empty}, 2, "neither a run report nor a campaign file"},
		{[]string{"report", notjson, "--format", "xml"}, 2, `flag --format: "xml" is not a format`},
	}
	for _, tt := range tests {
		r := runHarness(t, tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.stderr) || strings.Count(r.stderr, "\n") > 1 {
			t.Errorf("%q: exit %d stderr %q, want %d and %q", tt.args, r.code, r.stderr, tt.code, tt.stderr)
		}
	}
}

// TestReportJUnit: the JUnit rendering of a FAIL and of a NOT_TESTED run
// has the shape CI tools read, with consistent counts.
func TestReportJUnit(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := startSession(t, "--scenario", "F1", "--audit-tools", "off")
	p.call("create_booking", bookingArgs)
	p.call("create_booking", bookingArgs)
	p.call("book_room", `{"room":"7","nights":2}`)
	p.finish()
	r := runHarness(t, "report", p.report, "--format", "junit")
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (FAIL); stderr %s", r.code, r.stderr)
	}
	var doc struct {
		XMLName  xml.Name
		Tests    int `xml:"tests,attr"`
		Failures int `xml:"failures,attr"`
		Skipped  int `xml:"skipped,attr"`
		Suites   []struct {
			Name     string `xml:"name,attr"`
			Tests    int    `xml:"tests,attr"`
			Failures int    `xml:"failures,attr"`
			Skipped  int    `xml:"skipped,attr"`
			Cases    []struct {
				Name      string `xml:"name,attr"`
				ClassName string `xml:"classname,attr"`
				Failure   *struct {
					Message string `xml:"message,attr"`
				} `xml:"failure"`
				Skipped *struct{} `xml:"skipped"`
			} `xml:"testcase"`
		} `xml:"testsuite"`
	}
	if err := xml.Unmarshal([]byte(r.stdout), &doc); err != nil {
		t.Fatalf("not XML: %v\n%s", err, r.stdout)
	}
	if doc.XMLName.Local != "testsuites" || len(doc.Suites) != 1 || doc.Suites[0].Name != "F1" {
		t.Fatalf("shape: %s\n%s", doc.XMLName.Local, r.stdout)
	}
	s := doc.Suites[0]
	fails, skips := 0, 0
	var names []string
	for _, c := range s.Cases {
		names = append(names, c.Name)
		if c.ClassName == "" {
			t.Errorf("testcase %s without classname", c.Name)
		}
		if c.Failure != nil {
			fails++
		}
		if c.Skipped != nil {
			skips++
		}
	}
	if s.Tests != len(s.Cases) || s.Failures != fails || s.Skipped != skips || doc.Tests != s.Tests || doc.Failures != fails || doc.Skipped != skips {
		t.Errorf("counts: suites %d/%d/%d suite %d/%d/%d cases %d/%d/%d", doc.Tests, doc.Failures, doc.Skipped, s.Tests, s.Failures, s.Skipped, len(s.Cases), fails, skips)
	}
	if got := strings.Join(names, ","); got != "verdict,op-1 create_booking,op-2 book_room" || fails != 2 || skips != 0 {
		t.Errorf("testcases %s, %d failures %d skipped; want verdict and op-1 failing\n%s", got, fails, skips, r.stdout)
	}
	if js := runHarness(t, "report", p.report, "--format", "json"); js.code != 1 || js.stdout != string(mustRead(t, p.report)) {
		t.Errorf("--format json: exit %d, output differs from the file", js.code)
	}
}

func mustRead(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
