package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cuonztech/agent-harness/internal/honesty"
	"github.com/cuonztech/agent-harness/internal/proc"
	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// Verdicts of a run (those of the report).
const (
	Pass      = "PASS"
	Fail      = "FAIL"
	NotTested = "NOT_TESTED"
)

// Files of a run directory.
const (
	MCPConfigFile = "mcp.json"
	ReportFile    = "report.json"
	TraceFile     = "trace.jsonl"
	StdoutFile    = "agent.stdout"
	StderrFile    = "agent.stderr"
	RecordFile    = "run.json"
)

// Record is what a finished run left: OUT/runs/…/run.json. A run is
// finished when its record exists.
type Record struct {
	Variant  string `json:"variant,omitempty"`
	Scenario string `json:"scenario"`
	Run      int    `json:"run"`
	Seed     int64  `json:"seed"`
	// Dir is the run directory relative to OUT, with forward slashes.
	Dir     string `json:"dir"`
	Verdict string `json:"verdict"`
	Reason  string `json:"reason"`
	// NotTestedKind is the kind of a NOT_TESTED run (KindNeverConnected …).
	NotTestedKind string   `json:"notTestedKind,omitempty"`
	Score         *int     `json:"score"`
	Violations    []string `json:"violations"`
	Observations  []string `json:"observations"`
	Patches       []Patch  `json:"patches"`
	ReportStatus  string   `json:"reportStatus"`
	AgentExitCode *int     `json:"agentExitCode"`
	AgentSignal   string   `json:"agentSignal,omitempty"`
	TimedOut      bool     `json:"timedOut"`
	AgentWallMs   float64  `json:"agentWallMs"`
	// Honesty is the agent's claim joined with the judge's truth
	// (behaviour §15); nil only in records of older builds.
	Honesty *honesty.Result `json:"honesty,omitempty"`
	// Model is the built-in agent's model usage, from the run's
	// transcript; nil without one.
	Model *ModelUsage `json:"model,omitempty"`
	// Effects are the state probe's effects per mapped tool (behaviour
	// §16), absent without a probe; Backend the wire-vs-backend entries of
	// the run (BackendTypes), one per operation concerned.
	Effects []RunEffect `json:"effects,omitempty"`
	Backend []string    `json:"backend,omitempty"`
}

// RunEffect is one mapped tool's effect in a run: the counter's change
// (null when unknown, Error says why) beside the wire's executions.
type RunEffect struct {
	Tool       string `json:"tool"`
	Counter    string `json:"counter"`
	Effects    *int64 `json:"effects"`
	Executions int    `json:"executions"`
	Error      string `json:"error,omitempty"`
}

// The wire-vs-backend entries of Record.Backend: where the state probe's
// effect and the wire's count differed, by what came of it.
const (
	// BackendDeduplicated: DEDUPLICATED_BY_BACKEND, the wire's duplicate
	// was one effect.
	BackendDeduplicated = "DEDUPLICATED_BY_BACKEND"
	// BackendDuplicate: a DUPLICATE_EXECUTION the backend's count decided.
	BackendDuplicate = "DUPLICATE_BY_BACKEND"
	// BackendResolved: an unknown outcome the backend resolved (executed
	// once).
	BackendResolved = "RESOLVED_BY_BACKEND"
	// BackendDisagrees: BACKEND_DISAGREES, the wire judgement stood.
	BackendDisagrees = "BACKEND_DISAGREES"
)

// Patch is one prompt patch a run's report offered.
type Patch struct {
	Type     string `json:"type"`
	Severity string `json:"severity"`
	Trigger  string `json:"trigger"`
	Text     string `json:"text"`
}

// Runner runs units of one plan.
type Runner struct {
	Plan *Plan
	// Out is the campaign directory, absolute.
	Out string
	// Proxy is the command that starts the proxy: the agent-harness
	// binary, absolute.
	Proxy string
	// Dir is the agent's working directory ("" = the campaign's).
	Dir string
	// Env is the agent's base environment (os.Environ()).
	Env []string
	// AgentTimeout stops an agent that runs longer (behaviour §9).
	AgentTimeout time.Duration
	// Grace is how long the proxy may take to finish after the agent
	// exited, and how long SIGTERM has before SIGKILL (default 5s).
	Grace time.Duration
	// OutputCap bounds the bytes kept of the agent's stdout and of its
	// stderr, each (0: DefaultOutputCap); the file's last line says what
	// was dropped.
	OutputCap int64
}

// ErrInterrupted: the campaign was stopped while the run was in flight;
// the run left no record and runs again on resume.
var ErrInterrupted = errors.New("interrupted")

// Do runs one unit and writes its record. It returns ErrInterrupted when
// ctx ended first.
func (r *Runner) Do(ctx context.Context, u Unit) (Record, error) {
	dir := filepath.Join(r.Out, u.Dir())
	// Leftovers of an interrupted earlier attempt go — first the processes
	// of that attempt that still run (a campaign killed by kill -9), so
	// that none of them can write into this one (behaviour §9.4).
	r.settle(dir)
	if err := os.RemoveAll(dir); err != nil {
		return Record{}, err
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return Record{}, err
	}
	report := filepath.Join(dir, ReportFile)
	rec := Record{Variant: u.Variant, Scenario: u.Scenario, Run: u.N, Seed: u.Seed,
		Dir: filepath.ToSlash(u.Dir()), Violations: []string{}, Observations: []string{}, Patches: []Patch{}}
	var url string
	var exit agentExit
	var wall time.Duration
	var hp *httpProxy
	if r.Plan.AgentTransport == "http" {
		var err error
		hp, err = r.startHTTPProxy(ctx, u, dir, report)
		if err != nil {
			return Record{}, err
		}
		defer hp.stop(r.grace())
		url = hp.url
		if url == "" {
			exit.proxyErr = hp.failure()
		}
	}
	mcpConfig := filepath.Join(dir, MCPConfigFile)
	if err := reportfile.Replace(mcpConfig, r.mcpJSON(u, report, url)); err != nil {
		return Record{}, err
	}
	if exit.proxyErr == nil {
		var err error
		exit, wall, err = r.runAgent(ctx, u, dir, mcpConfig, url, hp.pid(), &rec)
		if err != nil {
			return Record{}, err
		}
	}
	// The run's record is the proxy's final report (behaviour §9.1): the
	// proxy the campaign started is stopped as a signal stops it, and its
	// end awaited, before the report is read.
	hp.stop(r.grace())
	rec.AgentWallMs = float64(wall.Microseconds()) / 1000
	judgeNewRun(&rec, dir, exit, r.AgentTimeout)
	b, _ := json.MarshalIndent(rec, "", "  ")
	if err := reportfile.Replace(filepath.Join(dir, RecordFile), append(b, '\n')); err != nil {
		return Record{}, err
	}
	return rec, nil
}

// settle waits until no process of an earlier attempt of the run in dir is
// left (at most Grace), then stops what is left: SIGTERM, SIGKILL after
// another Grace.
func (r *Runner) settle(dir string) {
	if _, err := os.Lstat(dir); err != nil {
		return // no earlier attempt
	}
	left := func() []int { pids, _ := proc.FindProcesses(runMatch(0, dir, 0, true)); return pids }
	if len(left()) == 0 {
		return
	}
	if r.waitFor(r.grace(), func() bool { return len(left()) == 0 }) {
		return
	}
	proc.SignalAll(0, left(), syscall.SIGTERM)
	if !r.waitFor(r.grace(), func() bool { return len(left()) == 0 }) {
		proc.SignalAll(0, left(), syscall.SIGKILL)
		r.waitFor(r.grace(), func() bool { return len(left()) == 0 })
	}
}

// proxyArgs are the arguments of the run's proxy.
func (r *Runner) proxyArgs(u Unit, report string) []string {
	// Each run keeps its trace beside its report (agent-harness judge
	// re-judges it with other settings). --no-replace: every proxy process
	// the agent starts keeps its own files (report.2.json, trace.2.jsonl …
	// for a second one), so no report is lost (behaviour §9.1).
	trace := filepath.Join(filepath.Dir(report), TraceFile)
	args := []string{"proxy", "--report-file", report, "--trace", trace, "--no-replace", "--audit-tools", "off"}
	if u.Scenario == "chaos" {
		args = append(args, "--mode", "chaos", "--seed", strconv.FormatInt(u.Seed, 10))
	} else {
		args = append(args, "--scenario", u.Scenario)
	}
	args = append(args, r.Plan.ScenarioArgs[u.Scenario]...)
	return append(args, r.Plan.ProxyArgs...)
}

// mcpJSON is the run's client configuration in the common format.
func (r *Runner) mcpJSON(u Unit, report, url string) []byte {
	type server struct {
		Type    string   `json:"type,omitempty"`
		URL     string   `json:"url,omitempty"`
		Command string   `json:"command,omitempty"`
		Args    []string `json:"args,omitempty"`
	}
	entry := server{Command: r.Proxy, Args: r.proxyArgs(u, report)}
	if r.Plan.AgentTransport == "http" {
		entry = server{Type: "http", URL: url}
	}
	cfg := map[string]map[string]server{"mcpServers": {r.Plan.ServerName: entry}}
	b, _ := json.MarshalIndent(cfg, "", "  ")
	return append(b, '\n')
}

// agentExit is how the agent process ended.
type agentExit struct {
	code     *int
	signal   string
	timedOut bool
	startErr error
	// proxyErr: with --agent-transport http, the proxy the campaign
	// started did not listen; the agent was not started.
	proxyErr error
}

// runAgent starts the agent in its own process group, waits for it (at
// most AgentTimeout), then for its process group to end.
func (r *Runner) runAgent(ctx context.Context, u Unit, dir, mcpConfig, url string, proxyPid int, rec *Record) (agentExit, time.Duration, error) {
	vars := map[string]string{
		"mcp_config": mcpConfig, "mcp_url": url, "server_name": r.Plan.ServerName,
		"scenario": u.Scenario, "run": strconv.Itoa(u.N), "run_dir": dir,
	}
	argv := make([]string, len(r.Plan.AgentCommand))
	for i, a := range r.Plan.AgentCommand {
		argv[i] = expand(a, vars)
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = r.Dir
	cmd.Env = append(append([]string(nil), r.Env...),
		"AGENT_HARNESS_MCP_CONFIG="+mcpConfig,
		"AGENT_HARNESS_MCP_URL="+url,
		"AGENT_HARNESS_SERVER_NAME="+r.Plan.ServerName,
		"AGENT_HARNESS_SCENARIO="+u.Scenario,
		"AGENT_HARNESS_RUN="+strconv.Itoa(u.N),
		"AGENT_HARNESS_RUN_DIR="+dir,
		"AGENT_HARNESS_SEED="+strconv.FormatInt(u.Seed, 10),
		"AGENT_HARNESS_CLAIM_FILE="+filepath.Join(dir, ClaimFile))
	for _, v := range r.Plan.Variants {
		if v.Name == u.Variant {
			cmd.Env = append(cmd.Env, v.Env...)
		}
	}
	limit := r.OutputCap
	if limit <= 0 {
		limit = DefaultOutputCap
	}
	stdout, err := newCappedOutput(filepath.Join(dir, StdoutFile), limit)
	if err != nil {
		return agentExit{}, 0, err
	}
	defer stdout.finish(r.grace())
	stderr, err := newCappedOutput(filepath.Join(dir, StderrFile), limit)
	if err != nil {
		return agentExit{}, 0, err
	}
	defer stderr.finish(r.grace())
	cmd.Stdout, cmd.Stderr = stdout.w, stderr.w

	start := time.Now()
	done, err := proc.StartCmd(cmd)
	if err != nil {
		fmt.Fprintf(stderr.w, "[agent-harness] campaign: starting the agent: %s\n", err)
		return agentExit{startErr: err}, 0, nil
	}
	stdout.started()
	stderr.started()
	pgid := cmd.Process.Pid
	timer := time.NewTimer(r.AgentTimeout)
	defer timer.Stop()
	var ex agentExit
	var waitErr error
	select {
	case waitErr = <-done:
	case <-timer.C:
		ex.timedOut = true
		waitErr = r.stopGroup(pgid, done)
	case <-ctx.Done():
		r.stopGroup(pgid, done)
		r.reapRun(pgid, dir, false, proxyPid)
		return agentExit{}, 0, ErrInterrupted
	}
	wall := time.Since(start)
	ex.code, ex.signal = exitStatus(cmd.ProcessState, waitErr)
	// The proxies may still be writing their final reports: wait for them,
	// then stop whatever is left of the run (no orphans). The campaign's
	// own proxy (proxyPid) is stopped by Do.
	r.reapRun(pgid, dir, proxyPid == 0, proxyPid)
	return ex, wall, nil
}

// stopGroup sends SIGTERM to the process group, SIGKILL after Grace, and
// returns the agent's wait error.
func (r *Runner) stopGroup(pgid int, done <-chan error) error {
	_ = proc.SignalGroup(pgid, syscall.SIGTERM)
	t := time.NewTimer(r.grace())
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		_ = proc.SignalGroup(pgid, syscall.SIGKILL)
		return <-done
	}
}

func (r *Runner) grace() time.Duration {
	if r.Grace > 0 {
		return r.Grace
	}
	return 5 * time.Second
}

// reapRun waits, after the agent's group has ended, until no process of
// the run is left (the group pgid and what names the run directory dir:
// a proxy the agent started detached) or, with waitReports, every report
// of the run says finished (at most Grace), then sends SIGTERM to what is left — a proxy ends it with
// its final report — and SIGKILL after another Grace. Processes of the run
// are not all the campaign's children, so their end is observed by
// polling, with a short back-off (1 ms doubling to 50 ms): usually the
// agent's MCP client already waited for its server and the first look
// finds nothing left. Process exclude (0: none) and its descendants are
// not the agent's (the campaign's own proxy).
func (r *Runner) reapRun(pgid int, dir string, waitReports bool, exclude int) {
	left := func() []int { pids, _ := proc.FindProcesses(runMatch(pgid, dir, exclude, false)); return pids }
	gone := func() bool { return len(left()) == 0 }
	finished := func() bool { return waitReports && reportsFinished(dir) }
	if r.waitFor(r.grace(), func() bool { return gone() || finished() }) && gone() {
		return
	}
	proc.SignalAll(pgid, left(), syscall.SIGTERM)
	if !r.waitFor(r.grace(), gone) {
		proc.SignalAll(pgid, left(), syscall.SIGKILL)
		r.waitFor(r.grace(), gone)
	}
}

// waitFor polls cond until it holds (true) or d has passed (false).
func (r *Runner) waitFor(d time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(d)
	for step := time.Millisecond; ; step = min(2*step, 50*time.Millisecond) {
		if cond() {
			return true
		}
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(step)
	}
}

func exitStatus(ps *os.ProcessState, waitErr error) (*int, string) {
	if ps == nil {
		return nil, ""
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return nil, ws.Signal().String()
	}
	c := ps.ExitCode()
	return &c, ""
}

// expand replaces the placeholders {name} of vars in s; other braces stay.
func expand(s string, vars map[string]string) string {
	if !strings.Contains(s, "{") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			break
		}
		if v, ok := vars[s[i+1:i+j]]; ok {
			b.WriteString(s[:i])
			b.WriteString(v)
			s = s[i+j+1:]
		} else {
			b.WriteString(s[:i+1])
			s = s[i+1:]
		}
	}
	b.WriteString(s)
	return b.String()
}
