package e2e

// End-to-end tests of the WebAssembly plugins wired into the proxy (issue
// 6, "Checked by"): the built binary with real plugin modules in front of
// the counting test upstream (testdata/upstream), the test as the agent.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func init() {
	// The same program without -race, to warm the compilation cache: the
	// race detector makes wazero's compiler ~10x slower (27 s for one Go
	// plugin), and the cache key does not depend on it.
	programs["agent-harness-norace"] = programs["agent-harness"]
}

// wasmBuilt builds the Go plugin package pkg (relative to the module root)
// with GOOS=wasip1 GOARCH=wasm -buildmode=c-shared once per test binary and
// returns the .wasm path.
func wasmBuilt(tb testing.TB, pkg string) string {
	tb.Helper()
	built(tb, "upstream") // creates the build directory
	pluginMu.Lock()
	defer pluginMu.Unlock()
	return wasmLocked(tb, pkg)
}

// refusedPlugin builds pkg, a plugin that compiles but that the proxy
// refuses (an import not allowed: that check follows compilation), and
// runs `plugin inspect` on it once per test binary only to compile it into
// the shared cache, so that a proxy under -race refuses it without
// compiling it first; the inspect's own refusal is not checked here (the
// tests check the proxy's). It returns the .wasm path.
func refusedPlugin(tb testing.TB, pkg string) string {
	tb.Helper()
	bin := inspectorBinary(tb)
	out := wasmBuilt(tb, pkg)
	pluginMu.Lock()
	defer pluginMu.Unlock()
	if !refusedWarm[pkg] {
		_ = exec.Command(bin, "plugin", "inspect", "--plugin-cache-dir", pluginCache(), out).Run()
		refusedWarm[pkg] = true
	}
	return out
}

func (r fileReport) violations() []string {
	var out []string
	for _, v := range r.Report.Violations {
		out = append(out, v.Type)
	}
	return out
}

// TestPluginDatesEndToEnd: F1, then the agent re-sends the booking with
// the date written differently. Without a plugin the calls are a possible
// duplicate (NOT_TESTED with POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS, SPEC
// §17.8; it was PASS 80); with the dates plugin they are one operation
// executed twice (FAIL DUPLICATE_EXECUTION).
func TestPluginDatesEndToEnd(t *testing.T) {
	t.Parallel() // separate processes and files
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name        string
		plugins     bool
		verdict     string
		violations  []string
		observation string
		ops         int
		status      []string
	}{
		{name: "without the plugin", verdict: "NOT_TESTED", observation: "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS", ops: 2},
		{name: "with dates", plugins: true, verdict: "FAIL", violations: []string{"DUPLICATE_EXECUTION"}, ops: 1,
			status: []string{"dates 0.1.0 ok"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--scenario", "F1", "--audit-tools", "off"}
			if tt.plugins {
				args = append(append(args, proxyPluginFlags(t, "./plugins/dates")...), pluginTimeout)
			}
			p := startSession(t, args...)
			if got := p.call("create_booking", `{"room":"12","date":"2026-11-03"}`); got.text() != timeoutText {
				t.Errorf("first write: %+v, want the F1 timeout", got)
			}
			if got := p.call("create_booking", `{"room":"12","date":"03.11.2026"}`); got.IsError {
				t.Errorf("re-send: %+v, want the upstream's answer", got)
			}
			r := p.finishReport()
			if r.Verdict != tt.verdict || !slices.Equal(r.violations(), tt.violations) || len(r.Report.Operations) != tt.ops {
				t.Errorf("verdict %s violations %v operations %d, want %s %v %d\nreason: %s",
					r.Verdict, r.violations(), len(r.Report.Operations), tt.verdict, tt.violations, tt.ops, r.Report.VerdictReason)
			}
			if tt.observation != "" && !slices.Contains(r.observations(), tt.observation) {
				t.Errorf("observations %v, want %s", r.observations(), tt.observation)
			}
			for _, v := range r.Report.Violations {
				if v.Duplicate == nil || !v.Duplicate.AfterTimeout {
					t.Errorf("duplicate %+v, want afterTimeout", v.Duplicate)
				}
			}
			if got := p.readPluginFile().pluginStatus(); !slices.Equal(got, tt.status) {
				t.Errorf("report plugins %q, want %q", got, tt.status)
			}
			if got := p.upstreamExecutions(); got["create_booking"] != 2 {
				t.Errorf("upstream executions %v, want create_booking twice", got)
			}
			p.checkExecutions(r)
		})
	}
}

// TestPluginVerbsEndToEnd: the verbs classifier fixes the two documented
// misfires in the startup table and the report, and so decides which call
// F1 fires on.
func TestPluginVerbsEndToEnd(t *testing.T) {
	t.Parallel() // separate processes and files
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name    string
		plugins bool
		table   []string // exact stderr lines
		classes string   // toolClassification of the two tools
		first   string   // the first call's answer
	}{
		{name: "built-in patterns", table: []string{
			"[agent-harness]   read         check_in_guest  (read prefix)",
			"[agent-harness]   write        update_status_view  (default write pattern)",
		}, classes: "check_in_guest=read update_status_view=write", first: "check_in_guest done"},
		{name: "with verbs", plugins: true, table: []string{
			"[agent-harness]   write        check_in_guest  (verb table: check_in → write (plugin verbs))",
			"[agent-harness]   read         update_status_view  (tool table: update_status_view → read (plugin verbs))",
		}, classes: "check_in_guest=write update_status_view=read", first: timeoutText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := []string{"--upstream-arg=-hotel-tools", "--scenario", "F1", "--audit-tools", "off"}
			if tt.plugins {
				args = append(append(args, proxyPluginFlags(t, "./plugins/verbs")...), pluginTimeout)
			}
			p := startSession(t, args...)
			p.stderr.waitFor(t, "Key field recognised")
			for _, line := range tt.table {
				if !slices.Contains(strings.Split(p.stderr.String(), "\n"), line) {
					t.Errorf("startup table lacks %q:\n%s", line, p.stderr)
				}
			}
			// F1 fires on the first write: check_in_guest only when it is one.
			if got := p.call("check_in_guest", `{"guest":"Ada","room":"12"}`); got.text() != tt.first {
				t.Errorf("check_in_guest answered %q, want %q", got.text(), tt.first)
			}
			r := p.finishReport()
			var classes []string
			for _, c := range r.ToolClassification {
				if strings.HasPrefix(c.Name, "check_in") || strings.HasPrefix(c.Name, "update_status") {
					classes = append(classes, c.Name+"="+c.Class)
				}
			}
			if got := strings.Join(classes, " "); got != tt.classes {
				t.Errorf("toolClassification %s, want %s", got, tt.classes)
			}
		})
	}
}

// TestPluginFaultPackEndToEnd: the fault pack's scenarios run through the
// proxy and are judged against what the upstream really executed.
func TestPluginFaultPackEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	const partialText = "Error: HTTP 500 Internal Server Error: the operation failed partway; some changes may have been applied."
	const delay = 300 * time.Millisecond
	tests := []struct {
		name       string
		scenario   string
		agent      func(t *testing.T, p *stdioProxy)
		verdict    string
		violations []string
		parallel   bool
		executions int // of create_booking, upstream and report
	}{
		{
			name: "slow_write: the agent waits", scenario: "slow_write",
			agent: func(t *testing.T, p *stdioProxy) {
				start := time.Now()
				got := p.call("create_booking", bookingArgs)
				if got.IsError || got.text() != "create_booking done" {
					t.Errorf("slow write answered %+v, want the upstream's own answer", got)
				}
				// The answer is held at least delay_ms (a lower bound, not
				// a timing threshold on speed).
				if d := time.Since(start); d < delay {
					t.Errorf("answer after %v, want it held at least %v", d, delay)
				}
			},
			verdict: "PASS", executions: 1,
		},
		{
			name: "slow_write: the agent re-sends while the first is in flight", scenario: "slow_write",
			agent: func(t *testing.T, p *stdioProxy) {
				a := p.sendCall("create_booking", bookingArgs)
				b := p.sendCall("create_booking", bookingArgs)
				p.awaitCall(a)
				p.awaitCall(b)
			},
			verdict: "FAIL", violations: []string{"DUPLICATE_EXECUTION"}, parallel: true, executions: 2,
		},
		{
			name: "partial_success: the agent re-sends", scenario: "partial_success",
			agent: func(t *testing.T, p *stdioProxy) {
				if got := p.call("create_booking", bookingArgs); !got.IsError || got.text() != partialText {
					t.Errorf("first write answered %+v, want the partial-success error", got)
				}
				if got := p.call("create_booking", bookingArgs); got.IsError {
					t.Errorf("re-send answered %+v, want the upstream's answer", got)
				}
			},
			verdict: "FAIL", violations: []string{"DUPLICATE_EXECUTION"}, executions: 2,
		},
		{
			name: "partial_success: the agent reads instead", scenario: "partial_success",
			agent: func(t *testing.T, p *stdioProxy) {
				p.call("create_booking", bookingArgs)
				p.call("get_booking", `{"id":"b1"}`)
			},
			verdict: "PASS", executions: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			args := append(proxyPluginFlags(t, "./plugins/faultpack"), pluginTimeout, "--scenario", tt.scenario, "--audit-tools", "off",
				"--plugin-config", fmt.Sprintf(`faultpack={"slow_write":{"delay_ms":%d}}`, delay.Milliseconds()))
			p := startSession(t, args...)
			tt.agent(t, p)
			r := p.finishReport()
			if r.Verdict != tt.verdict || !slices.Equal(r.violations(), tt.violations) {
				t.Errorf("verdict %s violations %v, want %s %v\nreason: %s", r.Verdict, r.violations(), tt.verdict, tt.violations, r.Report.VerdictReason)
			}
			if r.Scenario == nil || *r.Scenario != tt.scenario {
				t.Errorf("report scenario %v, want %s", r.Scenario, tt.scenario)
			}
			for _, v := range r.Report.Violations {
				if v.Duplicate == nil || v.Duplicate.Parallel != tt.parallel {
					t.Errorf("duplicate %+v, want parallel %v", v.Duplicate, tt.parallel)
				}
			}
			if got := p.upstreamExecutions()["create_booking"]; got != tt.executions {
				t.Errorf("upstream executed create_booking %d times, want %d", got, tt.executions)
			}
			p.checkExecutions(r)
			if got := p.readPluginFile().pluginStatus(); !slices.Equal(got, []string{"faultpack 0.1.0 ok"}) {
				t.Errorf("report plugins %q", got)
			}
		})
	}
}

// TestPluginHostileEndToEnd: a plugin that loops, panics or exits on
// every call does not stop the proxy: every call is answered, stderr and
// the report name the failure, and the run never passes.
func TestPluginHostileEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name string
		do   string // the hostile plugin's misdeed in equiv_key
		// calls of create_booking with distinct rooms; from the sixth on
		// the plugin is disabled.
		calls   int
		extra   []string // more proxy flags
		status  string
		failure string // in the stderr line and the report's detail
	}{
		{name: "infinite loop", do: "loop", calls: 2, status: "failed", failure: "deadline of 1s exceeded"},
		{name: "panic", do: "panic", calls: 2, status: "failed", failure: "panic: hostile panic"},
		{name: "exit", do: "exit", calls: 2, status: "failed", failure: "exited with code 3"},
		{name: "memory bomb", do: "bomb", calls: 2, extra: []string{"--plugin-memory=32"}, status: "failed", failure: "equiv_key create_booking"},
		{name: "trap on every call: disabled", do: "panic", calls: 7, status: "disabled", failure: "panic: hostile panic"},
		{name: "--plugin-max-failures 2: disabled after two", do: "panic", calls: 3, extra: []string{"--plugin-max-failures", "2"},
			status: "disabled", failure: "panic: hostile panic"},
		{name: "input over --plugin-input-limit", do: strings.Repeat("x", 1100), calls: 1, extra: []string{"--plugin-input-limit=1024"},
			status: "failed", failure: "exceeds the limit of 1024"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			// --write-tools: the hostile classifier calls every other tool
			// a read; the explicit glob comes first.
			args := append(proxyPluginFlags(t, "./internal/plugin/testdata/hostile"), hostileTimeout,
				"--write-tools", "create_booking", "--audit-tools", "off")
			p := startSession(t, append(args, tt.extra...)...)
			for i := range tt.calls {
				got := p.call("create_booking", `{"room":"`+string(rune('a'+i))+`","do":"`+tt.do+`"}`)
				if got.IsError || got.text() != "create_booking done" {
					t.Errorf("call %d answered %+v, want the upstream's answer", i+1, got)
				}
			}
			line := p.stderr.waitFor(t, "[agent-harness] plugin hostile failed: equiv_key create_booking: ")
			if !strings.Contains(line, tt.failure) {
				t.Errorf("stderr line %q, want it to contain %q", line, tt.failure)
			}
			r := p.finishReport()
			if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, `Plugin "hostile" failed`) {
				t.Errorf("verdict %s (%s), want NOT_TESTED naming the plugin", r.Verdict, r.Report.VerdictReason)
			}
			f := p.readPluginFile()
			if len(f.Plugins) != 1 || f.Plugins[0].Status != tt.status || f.Plugins[0].Failures < 1 {
				t.Errorf("report plugins %+v, want hostile %s with failures", f.Plugins, tt.status)
			}
			if len(f.Report.PluginFailures) != 1 || f.Report.PluginFailures[0].Plugin != "hostile" ||
				!strings.Contains(f.Report.PluginFailures[0].Detail, tt.failure) {
				t.Errorf("pluginFailures %+v, want hostile: %s", f.Report.PluginFailures, tt.failure)
			}
			if got := p.upstreamExecutions()["create_booking"]; got != tt.calls {
				t.Errorf("upstream executed %d writes, want %d", got, tt.calls)
			}
			p.checkExecutions(r)
		})
	}
}

// TestPluginHostileDuplicateStillFails: with the equivalence plugin
// failing, the built-in key still sees a literal double execution.
func TestPluginHostileDuplicateStillFails(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	args := append(proxyPluginFlags(t, "./internal/plugin/testdata/hostile"), hostileTimeout,
		"--write-tools", "create_booking", "--scenario", "F1", "--audit-tools", "off")
	p := startSession(t, args...)
	p.call("create_booking", `{"room":"1","do":"loop"}`)
	p.call("create_booking", `{"room":"1","do":"loop"}`)
	r := p.finishReport()
	if r.Verdict != "FAIL" || !slices.Equal(r.violations(), []string{"DUPLICATE_EXECUTION"}) {
		t.Errorf("verdict %s violations %v, want FAIL DUPLICATE_EXECUTION (%s)", r.Verdict, r.violations(), r.Report.VerdictReason)
	}
	if f := p.readPluginFile(); len(f.Report.PluginFailures) != 1 {
		t.Errorf("pluginFailures %+v, want the hostile plugin's", f.Report.PluginFailures)
	}
	p.checkExecutions(r)
}

// TestPluginHostileClassifier: a classify hook that loops on a tool added
// during the session leaves that tool unclassified (shown in the table),
// is recorded through the pipeline, and the run cannot pass.
func TestPluginHostileClassifier(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	args := append(proxyPluginFlags(t, "./internal/plugin/testdata/hostile"), hostileTimeout,
		"--write-tools", "create_booking", "--audit-tools", "off")
	p := startSession(t, args...)
	p.call("create_booking", `{"room":"1"}`) // the plugin answers normally
	p.call("add_tool", `{"name":"loop"}`)    // the upstream lists "loop" now
	p.stderr.waitFor(t, "[agent-harness]   unclassified loop  (plugin hostile failed: classify loop: ")
	if got := p.call("loop", `{}`); got.IsError {
		t.Errorf("call of loop answered %+v, want the upstream's answer", got)
	}
	r := p.finishReport()
	if r.Verdict != "NOT_TESTED" || !strings.Contains(r.Report.VerdictReason, `Plugin "hostile" failed (classify loop: `) {
		t.Errorf("verdict %s (%s), want NOT_TESTED naming the classify failure", r.Verdict, r.Report.VerdictReason)
	}
	if f := p.readPluginFile(); len(f.Plugins) != 1 || f.Plugins[0].Status != "failed" || f.Plugins[0].Failures != 1 {
		t.Errorf("report plugins %+v, want hostile failed once", f.Plugins)
	}
}

// TestPluginStartErrors: problems found while loading plugins end the
// proxy before the upstream starts: a usage error (exit 2) or a plugin
// that does not load (exit 1), each one stderr line.
func TestPluginStartErrors(t *testing.T) {
	t.Parallel() // separate processes and files
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	proxy, upstream := binaries(t)
	dates, faultpack := buildPlugin(t, "./plugins/dates"), buildPlugin(t, "./plugins/faultpack")
	readfile := refusedPlugin(t, "./internal/plugin/testdata/readfile")
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	tests := []struct {
		name   string
		args   []string
		code   int
		line   string // the one stderr line
		report string // the report file's startupError substring; "" = no file
	}{
		{name: "scenario no plugin declares", args: []string{"--plugin", dates, "--scenario", "nosuch"}, code: 2,
			line: `[agent-harness] proxy: flag --scenario: "nosuch" is not a scenario (F1–F5; the loaded plugins declare no fault)`},
		{name: "scenario with fault names", args: []string{"--plugin", faultpack, "--scenario", "slow", "--report-file", report}, code: 2,
			line: `[agent-harness] proxy: flag --scenario: "slow" is not a scenario (F1–F5; plugin faults: partial_success, slow_write)`},
		{name: "missing module", args: []string{"--plugin", "/nonexistent.wasm"}, code: 1,
			line: "[agent-harness] proxy: loading plugin /nonexistent.wasm: "},
		{name: "missing module with a report file", args: []string{"--plugin", "/nonexistent.wasm", "--report-file", report}, code: 1,
			line: "[agent-harness] proxy: loading plugin /nonexistent.wasm: ", report: "loading plugin /nonexistent.wasm: "},
		{name: "not a module", args: []string{"--plugin", upstream}, code: 1,
			line: "[agent-harness] proxy: loading plugin " + upstream + ": not a WebAssembly module"},
		{name: "imports the file system", args: []string{"--plugin", readfile}, code: 1,
			line: "[agent-harness] proxy: loading plugin " + readfile + ": import not allowed: "},
		{name: "configuration for no plugin", args: []string{"--plugin", dates, "--plugin-config", "nosuch={}"}, code: 1,
			line: `[agent-harness] proxy: plugin configuration for "nosuch": no loaded plugin has that name`},
		{name: "bad report target first", args: []string{"--plugin", "/nonexistent.wasm", "--report-file", dir}, code: 2,
			line: "[agent-harness] proxy: flag --report-file: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(report)
			// The upstream would announce its start on stderr and exit 9.
			args := append([]string{"proxy", "--upstream-command", upstream, "--upstream-arg=-exit-at-start", "--upstream-arg=9",
				"--plugin-cache-dir", pluginCache()}, tt.args...)
			var stdout, stderr bytes.Buffer
			cmd := exec.Command(proxy, args...)
			cmd.Stdout, cmd.Stderr = &stdout, &stderr
			err := cmd.Run()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != tt.code {
				t.Errorf("exit %v, want %d", err, tt.code)
			}
			if stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 || !strings.HasPrefix(stderr.String(), tt.line) {
				t.Errorf("stdout %q stderr %q, want one stderr line starting %q", stdout.String(), stderr.String(), tt.line)
			}
			b, err := os.ReadFile(report)
			switch {
			case tt.report == "" && err == nil:
				t.Errorf("report file written: %s", b)
			case tt.report != "":
				var r struct{ Status, Verdict, StartupError string }
				if err := json.Unmarshal(b, &r); err != nil || r.Status != "failed" || r.Verdict != "NOT_TESTED" || !strings.Contains(r.StartupError, tt.report) {
					t.Errorf("report file %s (%v), want failed NOT_TESTED with startupError %q", b, err, tt.report)
				}
			}
		})
	}
}

// TestPluginInspectDates: `agent-harness plugin inspect` prints the dates
// plugin's manifest (the output of the run that warmed the cache).
func TestPluginInspectDates(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	buildPlugin(t, "./plugins/dates")
	pluginMu.Lock()
	out := inspectBuilt["./plugins/dates"]
	pluginMu.Unlock()
	for _, want := range []string{"\nname         dates\n", "\nversion      0.1.0\n", "\nabi          1\n", "\nhooks        equiv_key\n", "\nfaults       (none)\n"} {
		if !strings.Contains(out, want) {
			t.Errorf("inspect output lacks %q:\n%s", want, out)
		}
	}
}
