package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestNumberedName(t *testing.T) {
	for _, c := range []struct {
		path string
		n    int
		want string
	}{
		{"out/report.json", 1, "out/report.json"},
		{"out/report.json", 2, "out/report.2.json"},
		{"out/trace.jsonl", 12, "out/trace.12.jsonl"},
		{"out/report", 3, "out/report.3"},
		{"out/.report", 2, "out/.report.2"},
	} {
		if got := numberedName(c.path, c.n); got != c.want {
			t.Errorf("numberedName(%q, %d) = %q, want %q", c.path, c.n, got, c.want)
		}
	}
}

// --no-replace: every proxy process claims its own report and trace, the
// first the names as given, the next ones numbered (behaviour §9.1): a
// second proxy of a campaign run never overwrites the first one's report.
func TestNoReplaceClaimsOwnFiles(t *testing.T) {
	dir := t.TempDir()
	report, trace := filepath.Join(dir, "report.json"), filepath.Join(dir, "trace.jsonl")
	claim := func(o proxyOptions) (proxyOptions, string) {
		var stderr bytes.Buffer
		claimFiles(&o, &stderr)
		return o, stderr.String()
	}
	o, stderr := claim(proxyOptions{ReportFile: report, TraceFile: trace})
	if _, err := os.Stat(report); err == nil || o.ReportFile != report || stderr != "" {
		t.Fatalf("without --no-replace: %q %q, stderr %q, the file exists: %v", o.ReportFile, o.TraceFile, stderr, err == nil)
	}
	o, stderr = claim(proxyOptions{ReportFile: report, TraceFile: trace, NoReplace: true})
	if fi, err := os.Stat(report); err != nil || fi.Size() != 0 || o.ReportFile != report || o.TraceFile != trace || stderr != "" {
		t.Fatalf("first proxy: %q %q, stderr %q, claim %v", o.ReportFile, o.TraceFile, stderr, err)
	}
	for n, want := range []string{"report.2.json", "report.3.json"} {
		o, stderr = claim(proxyOptions{ReportFile: report, TraceFile: trace, NoReplace: true})
		wantTrace := filepath.Join(dir, strings.Replace(want, "report", "trace", 1)+"l")
		wantLine := "[agent-harness] proxy: --no-replace: " + report + " exists (another proxy's); this proxy writes " +
			filepath.Join(dir, want) + " and " + wantTrace + "\n"
		if o.ReportFile != filepath.Join(dir, want) || o.TraceFile != wantTrace || stderr != wantLine {
			t.Errorf("proxy %d: %q %q, stderr %q; want %s, %s, %q", n+2, o.ReportFile, o.TraceFile, stderr, want, wantTrace, wantLine)
		}
	}
	// Only a trace: the trace is the claim.
	o, _ = claim(proxyOptions{TraceFile: trace, NoReplace: true})
	o, _ = claim(proxyOptions{TraceFile: trace, NoReplace: true})
	if o.TraceFile != filepath.Join(dir, "trace.2.jsonl") {
		t.Errorf("second trace-only proxy writes %q, want trace.2.jsonl", o.TraceFile)
	}
}

func TestNoReplaceNeedsReportOrTrace(t *testing.T) {
	_, err := parseProxyFlags(withBase("--no-replace"))
	if err == nil || !strings.HasSuffix(err.Error(), "flag --no-replace: only with --report-file or --trace") {
		t.Errorf("--no-replace alone: %v", err)
	}
	if _, err := parseProxyFlags(withBase("--no-replace", "--report-file", "r.json")); err != nil {
		t.Errorf("--no-replace --report-file: %v", err)
	}
	var stdout, stderr strings.Builder
	code := run(t.Context(), []string{"proxy", "--no-replace", "--", "true"}, strings.NewReader(""), &stdout, &stderr)
	if code != 2 || stdout.Len() != 0 || stderr.String() != "[agent-harness] proxy: flag --no-replace: only with --report-file or --trace\n" {
		t.Errorf("proxy --no-replace: exit %d, stdout %q, stderr %q; want 2, nothing on stdout and one line", code, stdout.String(), stderr.String())
	}
}
