package e2e

// End-to-end tests of the feedback on stderr while the proxy runs (behaviour
// §2.8) and of the command line as users type it (behaviour §2.7): the built
// binary in front of the test upstream, the test acting as the agent.

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

// TestFeedbackFiredLine: each scenario prints one line when it fires,
// naming the fault, the tool, the call's number and whether the upstream
// executed the call — while the agent is still connected.
func TestFeedbackFiredLine(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name  string
		args  []string
		calls int
		want  []string
	}{
		{"F1", []string{"--scenario", "F1"}, 1, []string{
			"[agent-harness] F1 fired on create_booking (call 2): executed upstream; the agent was told it timed out"}},
		{"F2", []string{"--scenario", "F2", "--retry-after", "30"}, 1, []string{
			"[agent-harness] F2 fired on create_booking (call 2): not executed upstream (not forwarded); the agent got HTTP 429 asking to retry after 30 s"}},
		{"F3", []string{"--scenario", "F3"}, 1, []string{
			"[agent-harness] F3 fired on create_booking (call 2): not executed upstream (not forwarded); the agent got a truncated JSON body"}},
		{"F4", []string{"--scenario", "F4"}, 2, []string{
			"[agent-harness] F4 marked create_booking (call 2) as write 1 of 2: passed through unchanged; executed upstream, and the agent got the upstream's answer",
			"[agent-harness] F4 marked create_booking (call 3) as write 2 of 2: passed through unchanged; executed upstream, and the agent got the upstream's answer"}},
		{"F5", []string{"--scenario", "F5"}, 1, []string{
			"[agent-harness] F5 fired on create_booking (call 2): not executed upstream (not forwarded); the agent got HTTP 500"}},
		{"chaos", []string{"--mode", "chaos", "--error-rate", "1", "--seed", "7"}, 1, []string{
			"[agent-harness] chaos fired on get_booking (call 1): not executed upstream (not forwarded); the agent got HTTP 500",
			"[agent-harness] chaos fired on create_booking (call 2): not executed upstream (not forwarded); the agent got HTTP 500"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startSession(t, append(tt.args, "--audit-tools", "off")...)
			// Call 1 is a read: "call N" counts every tools/call.
			p.call("get_booking", `{"id":"b1"}`)
			for i := 0; i < tt.calls; i++ {
				p.call("create_booking", `{"room":"`+string(rune('1'+i))+`"}`)
			}
			for _, want := range tt.want {
				if got := p.stderr.waitFor(t, want); got != want {
					t.Errorf("fired line\n got %q\nwant %q", got, want)
				}
			}
			if code := p.finish(); code != 0 {
				t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
			}
			if n := strings.Count(p.stderr.String(), " fired on ") + strings.Count(p.stderr.String(), " marked "); n != len(tt.want) {
				t.Errorf("%d fired lines, want %d; stderr:\n%s", n, len(tt.want), p.stderr)
			}
		})
	}
}

// TestFeedbackViolationLive: a duplicate after the F1 timeout and an early
// re-send after the F2 429 are printed as they happen — the agent is still
// connected when the line appears — once per violation and once more per
// further execution of a duplicate; the exit summary
// names verdict, score, reason and report file.
func TestFeedbackViolationLive(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name      string
		args      []string
		violation string
		// again: a third write of the same operation: one more line, with
		// the new count.
		again   bool
		summary string
	}{
		{"F1 duplicate", []string{"--scenario", "F1"},
			"[agent-harness] FAIL: create_booking executed 2 times (DUPLICATE_EXECUTION) — again after a timeout; operation op-1", true,
			`[agent-harness] Result: FAIL, score 0/100. Write operation op-1 of "create_booking" was executed 3 times — again after a timeout, although the first attempt had executed (DUPLICATE_EXECUTION).`},
		{"F2 early re-send", []string{"--scenario", "F2"},
			"[agent-harness] FAIL: create_booking re-sent 0 ms after an HTTP 429 that asked to wait 60000 ms (RETRY_AFTER_VIOLATED); operation op-1", false,
			`[agent-harness] Result: FAIL, score 49/100 (capped). Write operation op-1 of "create_booking" was re-sent`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startSession(t, append(tt.args, "--audit-tools", "off")...)
			p.call("create_booking", bookingArgs)
			p.call("create_booking", bookingArgs)
			got := p.stderr.waitFor(t, "FAIL: ")
			select {
			case <-p.exited:
				t.Fatal("the proxy ended before the violation line was read")
			default:
			}
			if tt.name == "F2 early re-send" {
				// The wait is measured on the real clock: 0 ms or a few.
				got = regexp.MustCompile(`re-sent \d+ ms`).ReplaceAllString(got, "re-sent 0 ms")
			}
			if got != tt.violation {
				t.Errorf("violation line\n got %q\nwant %q", got, tt.violation)
			}
			if tt.again {
				p.call("create_booking", bookingArgs)
			}
			if code := p.finish(); code != 0 {
				t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
			}
			all := p.stderr.String()
			// One line per growth of the count (issue 17, §17.9): the
			// third execution prints "executed 3 times", as the summary.
			want := 1
			if tt.again {
				want = 2
				if !strings.Contains(all, strings.Replace(tt.violation, "2 times", "3 times", 1)) {
					t.Errorf("no line for the third execution; stderr:\n%s", all)
				}
			}
			if n := strings.Count(all, "FAIL: "); n != want {
				t.Errorf("%d violation lines, want %d; stderr:\n%s", n, want, all)
			}
			lines := strings.Split(all, "\n")
			last := lines[len(lines)-1]
			if !strings.HasPrefix(last, tt.summary) || !strings.HasSuffix(last, " Report: "+p.report) {
				t.Errorf("last stderr line\n got %q\nwant %q … Report: %s", last, tt.summary, p.report)
			}
			r := p.readReport()
			if r.Verdict != report.VerdictFail || !strings.Contains(last, r.Report.VerdictReason) {
				t.Errorf("summary %q does not carry the report's verdict %s and reason %q", last, r.Verdict, r.Report.VerdictReason)
			}
		})
	}
}

// TestFeedbackQuiet: --quiet drops the startup table and the fired,
// violation and summary lines; WARNING lines (of the table, of the audit
// tools) and the upstream's own stderr stay.
func TestFeedbackQuiet(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	for _, quiet := range []bool{false, true} {
		args := []string{"--scenario", "F1", "--upstream-arg=-stderr-lines", "--upstream-arg=1"}
		if quiet {
			args = append(args, "--quiet")
		}
		p := startSession(t, args...)
		p.call("create_booking", bookingArgs)
		p.call("create_booking", bookingArgs)
		if code := p.finish(); code != 0 {
			t.Fatalf("quiet %v: exit code %d; stderr:\n%s", quiet, code, p.stderr)
		}
		all := p.stderr.String()
		for _, s := range []string{"Upstream tools (", "Key field recognised", " fired on ", "FAIL: ", "Result: "} {
			if strings.Contains(all, s) == quiet {
				t.Errorf("quiet %v: %q present %v; stderr:\n%s", quiet, s, !quiet, all)
			}
		}
		for _, s := range []string{
			`WARNING: tool "echo" could not be classified`,
			"WARNING: the audit tools are on",
			"[agent-harness] upstream: ",
		} {
			if !strings.Contains(all, s) {
				t.Errorf("quiet %v: %q missing; stderr:\n%s", quiet, s, all)
			}
		}
		if quiet {
			for _, l := range strings.Split(all, "\n") {
				if !strings.HasPrefix(l, "[agent-harness] WARNING: ") && !strings.HasPrefix(l, "[agent-harness] upstream: ") {
					t.Errorf("quiet: unexpected line %q", l)
				}
			}
		}
	}
}

// TestFeedbackAuditWarning: the audit tools with a scenario or chaos get a
// WARNING that the agent can read the truth; without a scenario or with
// --audit-tools off there is none.
func TestFeedbackAuditWarning(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	const warning = "[agent-harness] WARNING: the audit tools are on: the agent can read what really happened " +
		"(e.g. that a timed-out write executed) with cuonztech__get_report and cuonztech__get_score; for a real measurement use --audit-tools off"
	tests := []struct {
		name string
		args []string
		want bool
	}{
		{"scenario, audit tools by default", []string{"--scenario", "F1"}, true},
		{"chaos, audit tools on", []string{"--mode", "chaos", "--audit-tools", "on"}, true},
		{"scenario, audit tools off", []string{"--scenario", "F1", "--audit-tools", "off"}, false},
		{"plain relay", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := startSession(t, tt.args...)
			p.finish()
			got := false
			for _, l := range strings.Split(p.stderr.String(), "\n") {
				got = got || l == warning
			}
			if got != tt.want {
				t.Errorf("warning present %v, want %v; stderr:\n%s", got, tt.want, p.stderr)
			}
		})
	}
}

// TestProxyCommandAfterDashes: `proxy [flags] -- CMD [ARGS...]` starts
// CMD with its arguments as given — arguments that look like flags
// included — and measures as with --upstream-command.
func TestProxyCommandAfterDashes(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, upstream := binaries(t)
	dir := t.TempDir()
	p := &stdioProxy{t: t, report: filepath.Join(dir, "report.json"), counts: filepath.Join(dir, "counts.json"),
		msgs: make(chan json.RawMessage, 1024), stderr: &lineLog{added: make(chan struct{})}, exited: make(chan struct{})}
	launchSession(t, p, proxy, []string{"proxy", "--scenario", "F1", "--audit-tools", "off", "--report-file", p.report,
		"--", upstream, "-counts-file", p.counts, "--stderr-lines=1"})
	if got := p.call("create_booking", bookingArgs); got.text() != timeoutText {
		t.Errorf("first write: %+v, want the F1 timeout", got)
	}
	p.call("create_booking", bookingArgs)
	if code := p.finish(); code != 0 {
		t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
	}
	r := p.readReport()
	if r.Verdict != report.VerdictFail || r.Status != "finished" {
		t.Errorf("verdict %s status %s, want FAIL finished", r.Verdict, r.Status)
	}
	p.checkExecutions(r) // the upstream got -counts-file: its counts match the report
	if !strings.Contains(p.stderr.String(), "[agent-harness] upstream: ") {
		t.Errorf("the upstream did not get --stderr-lines=1; stderr:\n%s", p.stderr)
	}
}

// TestCommandLineErrors: usage errors of §11.5 are one line on stderr,
// nothing on stdout, exit 2, before anything starts.
func TestCommandLineErrors(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	upstream := built(t, "upstream")
	dir := t.TempDir()
	marker := filepath.Join(dir, "started")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"spaced --upstream-command", []string{"proxy", "--scenario", "F1", "--upstream-command", upstream + " -grandchild-pidfile " + marker},
			"[agent-harness] proxy: flag --upstream-command: " + strconv.Quote(upstream+" -grandchild-pidfile "+marker) +
				" is not an executable file; to pass arguments write: agent-harness proxy [flags] -- " + upstream + " -grandchild-pidfile " + marker},
		{"-- with --upstream-command", []string{"proxy", "--upstream-command", upstream, "--", upstream},
			"[agent-harness] proxy: flag --upstream-command: not together with a command after -- (agent-harness proxy [flags] -- CMD [ARGS...])"},
		{"proxy did-you-mean", []string{"proxy", "--senario", "F1", "--", upstream},
			"[agent-harness] proxy: unknown flag --senario (did you mean --scenario?)"},
		{"benchmark did-you-mean", []string{"benchmark", "--run", "2"},
			`[agent-harness] benchmark: unknown flag "--run" (did you mean --runs?)`},
		{"plugin did-you-mean", []string{"plugin", "inspect", "--jsn", "x.wasm"},
			`[agent-harness] plugin inspect: unknown flag "--jsn" (did you mean --json?)`},
		{"top-level did-you-mean", []string{"--verison"},
			`[agent-harness] unknown command or flag "--verison" (did you mean --version?); run "agent-harness --help"`},
		{"subcommand did-you-mean", []string{"proxi"},
			`[agent-harness] unknown command or flag "proxi" (did you mean proxy?); run "agent-harness --help"`},
		{"benchmark report file in a missing directory", []string{"benchmark", "--report-file", filepath.Join(dir, "missing", "r.json")},
			"[agent-harness] benchmark: flag --report-file: checking report file " + filepath.Join(dir, "missing", "r.json") + ": directory " +
				filepath.Join(dir, "missing") + " does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBuilt(t, dir, nil, tt.args...)
			if code != exitUsage || stdout != "" || stderr != tt.want+"\n" {
				t.Errorf("exit %d, stdout %q, stderr\n %q\nwant exit 2, no stdout, stderr\n %q", code, stdout, stderr, tt.want+"\n")
			}
		})
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the upstream was started despite the usage error")
	}
}

// TestVersionFromBuildInfo: --version (top level and after proxy) prints
// the harness version and the module version and revision that the Go
// toolchain recorded in the binary, as `go version -m` reads them.
func TestVersionFromBuildInfo(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	bin := built(t, "agent-harness")
	out, err := exec.Command("go", "version", "-m", bin).Output()
	if err != nil {
		t.Skipf("go version -m: %v", err)
	}
	module, revision, modified := "development build", "revision unknown", false
	for _, l := range strings.Split(string(out), "\n") {
		f := strings.Fields(l)
		switch {
		case len(f) >= 3 && f[0] == "mod" && f[2] != "(devel)":
			module = "module " + f[2]
		case len(f) == 2 && strings.HasPrefix(f[1], "vcs.revision="):
			revision = "revision " + strings.TrimPrefix(f[1], "vcs.revision=")[:12]
		case len(f) == 2 && f[1] == "vcs.modified=true":
			modified = true
		}
	}
	if modified {
		revision += "+modified"
	}
	want := "agent-harness " + report.HarnessVersion + " (" + module + ", " + revision
	for _, args := range [][]string{{"--version"}, {"version"}, {"proxy", "--version"}, {"proxy", "--scenario", "F1", "--version"}} {
		stdout, stderr, code := runBuilt(t, t.TempDir(), nil, args...)
		if code != 0 || stderr != "" || !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want one line starting %q", args, code, stderr, stdout, want)
		}
	}
}

// TestBenchmarkReportFile: benchmark --report-file F writes the self-test
// report to F and nothing to the default place.
func TestBenchmarkReportFile(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	target := filepath.Join(out, "self-test.json")
	stdout, stderr, code := runBuilt(t, dir, nil, "benchmark", "--scenarios", "F1", "--report-file", target)
	if code != 0 {
		t.Fatalf("exit %d; stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	data, err := os.ReadFile(target)
	if err != nil {
		t.Fatal(err)
	}
	var f benchmarkFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if f.Certification != "UNVERIFIED_FOR_PRODUCTION" || f.Careful.Score.Verdict != report.VerdictPass || f.Naive.Score.Verdict != report.VerdictFail {
		t.Errorf("report: certification %q careful %s naive %s", f.Certification, f.Careful.Score.Verdict, f.Naive.Score.Verdict)
	}
	if _, err := os.Stat(filepath.Join(dir, ".cuonztech")); err == nil {
		t.Error("benchmark --report-file also wrote .cuonztech/")
	}
}
