// Package e2e holds the end-to-end tests of agent-harness: each runs the
// built binary as a real process, in front of real upstream processes (the
// test programs under testdata/), acting as the agent over pipes, a
// loopback HTTP connection or a pseudo-terminal. They assert only what a
// user observes: bytes on the wire, report and trace files, exit codes and
// stderr lines. Tests that call unexported functions of the command stay
// in cmd/agent-harness.
//
// This file holds every helper more than one test file uses (the
// build-tagged helpers_linux_test.go and helpers_other_test.go hold
// waitGone, e2e_race_test.go and e2e_norace_test.go raceEnabled): the
// programs, built once per test process (built), the agent's side of a
// session (startPeer, startProxy, (*peer).request, …; stdioProxy and
// startSession with a report file; httpProxy and rawSession over HTTP),
// runBuilt for a one-shot command, the upstreams and fixtures, and the
// process checks of the orphan tests. Sections are marked "// ---- ".
package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/campaign"
)

// The documented exit codes of agent-harness (behaviour §13.1), as numbers: these
// tests assert what a user's script sees, not the command's constants.
const (
	exitOK               = 0
	exitVerdictFail      = 1
	exitUsage            = 2
	exitVerdictNotTested = 3
)

// maxWait bounds every wait for a message or an exit, so a broken proxy
// fails the test instead of hanging it. It is not a synchronisation sleep.
const maxWait = 60 * time.Second

var (
	buildDirOnce sync.Once
	buildDir     string
	buildDirErr  error

	buildMu    sync.Mutex
	builtPaths = map[string]string{}
)

// programs are the programs e2e tests run, by short name.
var programs = map[string]string{
	"agent-harness": "github.com/cuonztech/agent-harness/cmd/agent-harness",
	// The same program never built with -race: for the roles around the
	// process under test (campaign tests' sample server and reference
	// agent), where the race detector's start-up cost adds up over
	// hundreds of processes.
	"agent-harness-plain": "github.com/cuonztech/agent-harness/cmd/agent-harness",
	"upstream":            "./testdata/upstream",
	"sdkupstream":         "./testdata/sdkupstream",
	"taskupstream":        "./testdata/taskupstream",
	"byterelay":           "./testdata/byterelay",
	"httpupstream":        "./testdata/httpupstream",
}

func TestMain(m *testing.M) {
	if raceEnabled {
		noRaceExitSleep()
	}
	waitBoundParallelism()
	code := m.Run()
	printInteropSkips()
	printSubsets()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// waitBoundParallelism runs up to twice GOMAXPROCS tests at once unless
// -parallel is given. Every test here but six is parallel
// (TestEveryTestIsParallel) and spends most of its time waiting for the
// processes it starts, so go test's default of GOMAXPROCS left the cores
// half idle: on 2 cores the package took 150 s without -race and 215 s with
// it, and 110 s and 156 s this way (BENCHMARKS.md, "All end-to-end tests
// parallel").
func waitBoundParallelism() {
	flag.Parse()
	given := false
	flag.Visit(func(f *flag.Flag) { given = given || f.Name == "test.parallel" })
	if !given {
		_ = flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
}

// noRaceExitSleep sets GORACE for the processes the tests start: a program
// built with -race sleeps atexit_sleep_ms (default 1000) before it exits,
// which made each run of the proxy under -race last a second longer.
// Races found are still reported and still end the proxy with exit code
// 66, which the tests see. A GORACE that sets the sleep itself is kept.
func noRaceExitSleep() {
	v := os.Getenv("GORACE")
	if strings.Contains(v, "atexit_sleep_ms") {
		return
	}
	os.Setenv("GORACE", strings.TrimSpace(v+" atexit_sleep_ms=0"))
}

// built builds the named program once per test binary and returns its
// path. The proxy is built with -race when the tests are.
func built(tb testing.TB, name string) string {
	tb.Helper()
	buildDirOnce.Do(func() { buildDir, buildDirErr = os.MkdirTemp("", "agent-harness-e2e-") })
	if buildDirErr != nil {
		tb.Fatalf("create build dir: %v", buildDirErr)
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := builtPaths[name]; ok {
		return p
	}
	pkg, ok := programs[name]
	if !ok {
		tb.Fatalf("no e2e program %q", name)
	}
	out := filepath.Join(buildDir, name)
	args := []string{"build", "-o", out}
	if raceEnabled && name == "agent-harness" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = repoRoot(tb)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	builtPaths[name] = out
	return out
}

// repoRoot is the module root (two levels above this package,
// internal/e2e): the directory the go builds run in and the base of every
// repository file a test reads (README.md, RELIABILITY.md, testdata/).
func repoRoot(tb testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// syncBuffer is a bytes.Buffer safe for one writer and many readers.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// peer is the agent's side of a session with a process that speaks MCP on
// stdio: the proxy, or an upstream run directly.
type peer struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout io.ReadCloser
	stderr *syncBuffer
	lines  chan []byte
	exited chan struct{}
	// backlog holds messages received while waiting for something else,
	// in order.
	backlog [][]byte
}

// startPeer starts bin with args. env entries are added to the test's
// environment.
func startPeer(tb testing.TB, env []string, bin string, args ...string) *peer {
	tb.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	p := &peer{t: tb, cmd: cmd, stdin: stdin, stdout: stdout, stderr: &syncBuffer{},
		lines: make(chan []byte, 1024), exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		tb.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		r := bufio.NewReaderSize(stdout, 1<<16)
		for {
			line, err := r.ReadBytes('\n')
			if len(line) > 0 {
				p.lines <- bytes.TrimRight(line, "\r\n")
			}
			if err != nil {
				close(p.lines)
				return
			}
		}
	}()
	go func() {
		_ = cmd.Wait()
		close(p.exited)
	}()
	tb.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = cmd.Process.Kill()
			<-p.exited
		}
	})
	return p
}

// startProxy runs `agent-harness proxy` with the given flags.
func startProxy(tb testing.TB, env []string, flags ...string) *peer {
	tb.Helper()
	return startPeer(tb, env, built(tb, "agent-harness"), append([]string{"proxy"}, flags...)...)
}

// upstreamFlags are the proxy flags that start the test upstream with args.
func upstreamFlags(tb testing.TB, args ...string) []string {
	flags := []string{"--upstream-command", built(tb, "upstream")}
	for _, a := range args {
		flags = append(flags, "--upstream-arg="+a)
	}
	return flags
}

func (p *peer) send(line string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, line+"\n"); err != nil {
		p.t.Fatalf("write to peer: %v", err)
	}
}

// next returns the next message, from the backlog first.
func (p *peer) next() []byte {
	p.t.Helper()
	if len(p.backlog) > 0 {
		m := p.backlog[0]
		p.backlog = p.backlog[1:]
		return m
	}
	return p.read()
}

// read returns the next message from the process.
func (p *peer) read() []byte {
	p.t.Helper()
	select {
	case m, ok := <-p.lines:
		if !ok {
			p.t.Fatalf("peer closed its output; stderr:\n%s", p.stderr.String())
		}
		return m
	case <-time.After(maxWait):
		p.t.Fatalf("no message within %s; stderr:\n%s", maxWait, p.stderr.String())
	}
	return nil
}

// until returns the messages up to and including the response with id (a
// raw JSON id); messages after it stay in the backlog.
func (p *peer) until(id string) (before [][]byte, resp []byte) {
	p.t.Helper()
	for {
		m := p.next()
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(m, &env)
		if env.Method == "" && string(env.ID) == id {
			return before, m
		}
		before = append(before, m)
	}
}

// waitFor returns the first message for which match is true; the messages
// before it stay in the backlog, in order.
func (p *peer) waitFor(match func(m []byte) bool) []byte {
	p.t.Helper()
	var skipped [][]byte
	for {
		m := p.next()
		if match(m) {
			p.backlog = append(skipped, p.backlog...)
			return m
		}
		skipped = append(skipped, m)
	}
}

// request sends a request and returns its response line (other messages in
// between stay in the backlog).
func (p *peer) request(id, method, params string) []byte {
	p.t.Helper()
	p.send(rpcRequest(id, method, params))
	others, resp := p.until(id)
	p.backlog = append(others, p.backlog...)
	return resp
}

func rpcRequest(id, method, params string) string {
	if params == "" {
		return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q}`, id, method)
	}
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":%q,"params":%s}`, id, method, params)
}

const initializeParams = `{"protocolVersion":"2025-06-18","capabilities":{"roots":{"listChanged":true},"sampling":{},"elicitation":{}},"clientInfo":{"name":"e2e-agent","version":"0.0.1"}}`

// initialize performs the MCP handshake and returns the initialize response.
func (p *peer) initialize() []byte {
	p.t.Helper()
	resp := p.request(`1`, "initialize", initializeParams)
	p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return resp
}

// closeAndWait closes the peer's stdin and waits for it to exit; it returns
// the exit code and every message left on its stdout.
func (p *peer) closeAndWait() (code int, rest [][]byte) {
	p.t.Helper()
	p.stdin.Close()
	return p.wait()
}

// wait waits for the process to exit and its stdout to end.
func (p *peer) wait() (code int, rest [][]byte) {
	p.t.Helper()
	rest = append(rest, p.backlog...)
	p.backlog = nil
	timeout := time.After(maxWait)
	for open := true; open; {
		select {
		case m, ok := <-p.lines:
			if !ok {
				open = false
				break
			}
			rest = append(rest, m)
		case <-timeout:
			p.t.Fatalf("peer did not end within %s; stderr:\n%s", maxWait, p.stderr.String())
		}
	}
	select {
	case <-p.exited:
	case <-timeout:
		p.t.Fatalf("peer did not exit within %s; stderr:\n%s", maxWait, p.stderr.String())
	}
	return p.cmd.ProcessState.ExitCode(), rest
}

// exitStatus returns the exit code, or 128+signal for a killed process.
func exitStatus(ps *os.ProcessState) int {
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// sortedJSON re-encodes a JSON value with object keys sorted and every
// number kept as written, so two messages compare byte for byte modulo key
// order.
func sortedJSON(tb testing.TB, raw []byte) string {
	tb.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		tb.Fatalf("invalid JSON %.200q: %v", raw, err)
	}
	var b bytes.Buffer
	e := json.NewEncoder(&b)
	e.SetEscapeHTML(false)
	if err := e.Encode(v); err != nil {
		tb.Fatalf("re-encode: %v", err)
	}
	return strings.TrimRight(b.String(), "\n")
}

// sameJSON fails the test when a and b differ after key sorting.
func sameJSON(tb testing.TB, what string, direct, proxied []byte) {
	tb.Helper()
	ds, ps := sortedJSON(tb, direct), sortedJSON(tb, proxied)
	if ds != ps {
		tb.Errorf("%s differs through the proxy:\n direct: %.600s\n  proxy: %.600s", what, ds, ps)
	}
}

// processGone reports whether pid no longer runs (gone, or a zombie that
// nobody reaps).
func processGone(pid int) bool {
	if err := syscall.Kill(pid, 0); err != nil {
		return true
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && i+2 < len(stat) && (stat[i+2] == 'Z' || stat[i+2] == 'X')
}

// readPid returns the pid written to a pid file. The upstream writes its
// pid files before it serves, so they exist once initialize was answered.
func readPid(tb testing.TB, path string) int {
	tb.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		tb.Fatalf("pid file: %v", err)
	}
	var pid int
	if _, err := fmt.Sscan(string(b), &pid); err != nil {
		tb.Fatalf("pid file %s: %q is not a pid", path, b)
	}
	return pid
}

// ---- One-shot commands (runBuilt) and the benchmark report ----

// runBuilt runs the built binary in dir with args and extra environment
// entries, and returns stdout, stderr and the exit code.
func runBuilt(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := exec.Command(built(t, "agent-harness"), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("run %v: %v", args, err)
		}
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// benchmarkFile is the part of .cuonztech/benchmark-report.json the tests
// read.
type benchmarkFile struct {
	Certification string `json:"certification"`
	SelfTest      string `json:"selfTest"`
	Careful       agentPart
	Naive         agentPart
	Mismatches    []json.RawMessage `json:"mismatches"`
}

type agentPart struct {
	Score struct {
		Total   *int   `json:"total"`
		Verdict string `json:"verdict"`
		Capped  bool   `json:"capped"`
	} `json:"score"`
	Runs []struct {
		Scenario string `json:"scenario"`
		Run      int    `json:"run"`
		Verdict  string `json:"verdict"`
		Report   struct {
			Verdict string `json:"verdict"`
		} `json:"report"`
	} `json:"runs"`
}

// ---- Campaigns: a campaign run and its campaign.json ----

// campaignResult is what a finished `agent-harness campaign` left.
type campaignResult struct {
	code           int
	stdout, stderr string
	summary        campaign.Summary
}

// runCampaign runs the built binary with args and reads OUT/campaign.json
// (out is args' --out value).
func runCampaign(t *testing.T, out string, env []string, args ...string) campaignResult {
	t.Helper()
	return runCampaignWith(t, built(t, "agent-harness"), out, env, args...)
}

// runCampaignWith is runCampaign with another build of the binary.
func runCampaignWith(t *testing.T, bin, out string, env []string, args ...string) campaignResult {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"campaign"}, args...)...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	_ = cmd.Run()
	r := campaignResult{code: cmd.ProcessState.ExitCode(), stdout: stdout.String(), stderr: stderr.String()}
	if b, err := os.ReadFile(filepath.Join(out, "campaign.json")); err == nil {
		if err := json.Unmarshal(b, &r.summary); err != nil {
			t.Fatalf("campaign.json: %v", err)
		}
		checkCampaignSchema(t, out)
	}
	return r
}

// checkCampaignSchema checks that the campaign.json in out validates
// against campaign.schema.json, so that `agent-harness report` reads every
// file a campaign or a merge writes (red team 2: it refused every green
// and every --agent-transport http campaign's).
func checkCampaignSchema(t *testing.T, out string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(out, "campaign.json"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := campaign.ParseSummary(b); err != nil {
		t.Errorf("%s/campaign.json does not validate against campaign.schema.json: %v", out, err)
	}
}

func campaignNeedTools(t *testing.T, tools ...string) {
	t.Helper()
	for _, c := range tools {
		if _, err := exec.LookPath(c); err != nil {
			t.Skipf("needs %s", c)
		}
	}
}

// ---- Node.js clients and servers of the interop tests ----

// npmFile returns the path of a file installed under testdata/npm, or ""
// when it is missing.
func npmFile(t *testing.T, parts ...string) string {
	p := filepath.Join(append([]string{repoRoot(t), "testdata", "npm"}, parts...)...)
	if len(parts) > 0 && parts[0] == "node_modules" {
		p = filepath.Join(append([]string{nodeModules(t)}, parts[1:]...)...)
	}
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// runNode runs node with args in dir and returns its stdout, its stderr
// and its exit code; a run that does not end within maxWait fails the test.
func runNode(t *testing.T, dir string, env []string, args ...string) (stdout, stderr []byte, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), maxWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("node %s did not end within %s; stderr:\n%s", args[0], maxWait, errOut.Bytes())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatalf("node %s: %v", args[0], err)
	}
	return out.Bytes(), errOut.Bytes(), cmd.ProcessState.ExitCode()
}

// ---- Skipped interop tests. Interop tests run real Node.js clients and servers
// from testdata/npm/node_modules. Without node or those packages they skip,
// and a skip alone is visible only with -v: go test prints nothing of a
// passing package but its "ok" line. So every such skip goes through
// skipInterop, which counts it, and TestMain prints one line naming how
// many were skipped and how to get them (on the terminal, which go test
// does not buffer, else on stderr). With AGENT_HARNESS_REQUIRE_INTEROP=1
// (.ci/run sets it) the skip is a failure instead ----

// requireInteropEnv turns interop skips into failures when set to 1.
const requireInteropEnv = "AGENT_HARNESS_REQUIRE_INTEROP"

// nodeModulesEnv, when set, replaces testdata/npm/node_modules as the
// place the interop tests look for their packages (a test hook: an empty
// directory stands for a fresh clone).
const nodeModulesEnv = "AGENT_HARNESS_TEST_NODE_MODULES"

// What an interop test can lack, as skipInterop's line says it.
const (
	missingNode = "node is not on PATH (install Node.js, then run: npm ci --prefix testdata/npm)"
	missingNPM  = "the npm packages are not installed (run: npm ci --prefix testdata/npm)"
)

var interopSkips struct {
	sync.Mutex
	count   int
	missing []string // distinct, in order
}

// skipInterop skips t, which needs what missing names, or fails it under
// AGENT_HARNESS_REQUIRE_INTEROP=1.
func skipInterop(t testing.TB, missing string) {
	t.Helper()
	if os.Getenv(requireInteropEnv) == "1" {
		t.Fatalf("interop test not run: %s; %s=1 requires it", missing, requireInteropEnv)
	}
	interopSkips.Lock()
	interopSkips.count++
	known := false
	for _, m := range interopSkips.missing {
		known = known || m == missing
	}
	if !known {
		interopSkips.missing = append(interopSkips.missing, missing)
	}
	interopSkips.Unlock()
	t.Skip("skipping the interop test: " + missing)
}

// nodeModules is the directory of the interop tests' npm packages.
func nodeModules(t testing.TB) string {
	if d := os.Getenv(nodeModulesEnv); d != "" {
		return d
	}
	return filepath.Join(repoRoot(t), "testdata", "npm", "node_modules")
}

// interopSkipLine is the one line for the skips counted so far; "" when
// none.
func interopSkipLine() string {
	interopSkips.Lock()
	defer interopSkips.Unlock()
	if interopSkips.count == 0 {
		return ""
	}
	noun := "tests"
	if interopSkips.count == 1 {
		noun = "test"
	}
	return fmt.Sprintf("internal/e2e: skipped %d interop %s: %s\n", interopSkips.count, noun, strings.Join(interopSkips.missing, "; "))
}

// printInteropSkips writes interopSkipLine to the controlling terminal
// when there is one (go test shows a passing package's own output only
// with -v, but the terminal is not go test's to buffer), else to stderr.
func printInteropSkips() {
	line := interopSkipLine()
	if line == "" {
		return
	}
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprint(w, line)
}

// ---- Matrices run as their default subset. An exhaustive matrix (the LLM
// matrix, the framework matrix) runs a representative subset unless its
// environment variable says full (.ci/run sets them all); each that did
// notes it with noteSubset, and TestMain prints the notes as one line, where
// the interop skips' line goes ----

var subsets struct {
	sync.Mutex
	notes []string
}

// noteSubset records that a matrix ran only part of its cells; note says
// what ran and how to run the rest.
func noteSubset(note string) {
	subsets.Lock()
	defer subsets.Unlock()
	subsets.notes = append(subsets.notes, note)
}

// subsetLine is the one line for the subsets noted so far; "" when none.
func subsetLine() string {
	subsets.Lock()
	defer subsets.Unlock()
	if len(subsets.notes) == 0 {
		return ""
	}
	return "internal/e2e: default subsets: " + strings.Join(subsets.notes, "; ") + "\n"
}

// printSubsets writes subsetLine where printInteropSkips writes its line.
func printSubsets() {
	line := subsetLine()
	if line == "" {
		return
	}
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprint(w, line)
}

// ---- WebAssembly plugins: built once, inspected, passed to the proxy ----

var (
	pluginMu     sync.Mutex
	wasmOut      = map[string]string{} // package → .wasm path
	wasmErr      = map[string]error{}
	inspectBuilt = map[string]string{} // package → `plugin inspect` output
	inspectErr   = map[string]error{}
	refusedWarm  = map[string]bool{} // package → compiled into the cache by refusedPlugin
)

func wasmLocked(tb testing.TB, pkg string) string {
	tb.Helper()
	if err := wasmErr[pkg]; err != nil {
		tb.Fatal(err)
	}
	if p, ok := wasmOut[pkg]; ok {
		return p
	}
	out := filepath.Join(buildDir, "plugins", filepath.Base(pkg)+".wasm")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		tb.Fatal(err)
	}
	cmd := exec.Command("go", "build", "-buildmode=c-shared", "-o", out, pkg)
	cmd.Dir = repoRoot(tb)
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		wasmErr[pkg] = errors.New("building plugin " + pkg + ": " + err.Error() + "\n" + string(b))
		tb.Fatal(wasmErr[pkg])
	}
	wasmOut[pkg] = out
	return out
}

// buildPlugin builds pkg (wasmBuilt) and compiles it into the shared
// compilation cache (pluginCache) with `agent-harness plugin inspect`
// once per test binary, so proxies load it warm; it returns the .wasm
// path.
func buildPlugin(tb testing.TB, pkg string) string {
	tb.Helper()
	bin := inspectorBinary(tb)
	pluginMu.Lock()
	defer pluginMu.Unlock()
	out := wasmLocked(tb, pkg)
	if err := inspectErr[pkg]; err != nil {
		tb.Fatal(err)
	}
	if _, ok := inspectBuilt[pkg]; ok {
		return out
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command(bin, "plugin", "inspect", "--plugin-cache-dir", pluginCache(), out)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		inspectErr[pkg] = errors.New("plugin inspect " + out + ": " + err.Error() + "\n" + stderr.String())
		tb.Fatal(inspectErr[pkg])
	}
	inspectBuilt[pkg] = stdout.String()
	return out
}

// inspectorBinary is the agent-harness binary that compiles plugins into the
// shared cache: built without -race when the tests are.
func inspectorBinary(tb testing.TB) string {
	tb.Helper()
	if raceEnabled {
		return built(tb, "agent-harness-norace")
	}
	return built(tb, "agent-harness")
}

// pluginCache is the compilation cache every proxy of the run shares.
func pluginCache() string { return filepath.Join(buildDir, "wazero") }

// proxyPluginFlags are the proxy flags loading the plugin packages with the
// shared cache.
func proxyPluginFlags(tb testing.TB, pkgs ...string) []string {
	tb.Helper()
	var flags []string
	for _, pkg := range pkgs {
		flags = append(flags, "--plugin", buildPlugin(tb, pkg))
	}
	return append(flags, "--plugin-cache-dir", pluginCache())
}

// pluginFile is the plugin part of the report file.
type pluginFile struct {
	Plugins []struct {
		Name, Version, Status string
		Failures              int
		Detail                string
	} `json:"plugins"`
	Report struct {
		PluginFailures []struct {
			Plugin   string
			Failures int
			Detail   string
		} `json:"pluginFailures"`
	} `json:"report"`
}

func (p *stdioProxy) readPluginFile() pluginFile {
	p.t.Helper()
	return readJSONFile[pluginFile](p.t, p.report)
}

// pluginStatus is "name version status failures" per loaded plugin.
func (f pluginFile) pluginStatus() []string {
	var out []string
	for _, p := range f.Plugins {
		out = append(out, strings.Join([]string{p.Name, p.Version, p.Status}, " "))
	}
	return out
}

// finishReport ends the session (exit 0 expected) and returns the report.
func (p *stdioProxy) finishReport() fileReport {
	p.t.Helper()
	if code := p.finish(); code != 0 {
		p.t.Fatalf("exit code %d; stderr:\n%s", code, p.stderr)
	}
	r := p.readReport()
	if r.Status != "finished" || r.Verdict != r.Report.Verdict {
		p.t.Errorf("status %s verdict %s/%s, want finished and one verdict", r.Status, r.Verdict, r.Report.Verdict)
	}
	p.t.Cleanup(func() {
		if p.t.Failed() {
			b, _ := os.ReadFile(p.report)
			p.t.Logf("report file:\n%s\nstderr:\n%s", b, p.stderr)
		}
	})
	return r
}

// Generous per-call deadline for the well-behaved plugins: these tests
// check what a plugin decides, not how fast (a loaded CI machine running
// the race detector is slow).
const pluginTimeout = "--plugin-timeout=10s"

// hostileTimeout is the hook deadline of the hostile plugin's tests: a
// looping hook costs this much wall time, and a well-behaved hook of the
// same plugin must finish within it on a loaded machine.
const hostileTimeout = "--plugin-timeout=1s"

// ---- README and docs sections and their code blocks ----

// docSection returns the text of the Markdown file doc (a path from the
// repository root, such as "docs/plugins.md") under heading (a whole line
// such as "## X") up to the next heading of the same or a higher level,
// outside code fences.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	level := strings.IndexByte(heading, ' ')
	var out []string
	in, fence := false, false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "#") {
			n := len(line) - len(strings.TrimLeft(line, "#"))
			if in && n <= level && strings.HasPrefix(line[n:], " ") {
				break
			}
			if line == heading {
				in = true
				continue
			}
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("%s has no heading %q", doc, heading)
	}
	return strings.Join(out, "\n")
}

// ---- Benchmarks: a baseline binary, CPU time, medians ----

// benchBaselineEnv names another agent-harness binary to measure side by
// side with this build (BenchmarkProxyAddedLatency,
// BenchmarkReportFileSession).
const benchBaselineEnv = "AGENT_HARNESS_BENCH_BASELINE"

// processCPU is the CPU time all threads of process pid have used so far
// (from /proc/PID/task/*/schedstat), zero where that is not readable.
func processCPU(pid int) time.Duration {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		return 0
	}
	var sum time.Duration
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue
		}
		var ns int64
		if _, err := fmt.Sscan(string(b), &ns); err == nil {
			sum += time.Duration(ns)
		}
	}
	return sum
}

// median returns the median of ds in microseconds.
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Microsecond)
}

// ---- Captured output of a process ----

// captured is one message the agent received, labelled by the script step.
type captured struct {
	label string
	msg   []byte
}

// ---- HTTP benchmark sessions ----

type httpBenchTarget struct{ url, session string }

func httpBenchSession(b *testing.B, hc *http.Client, u string) httpBenchTarget {
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(rpcRequest("1", "initialize", initializeParams)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t := httpBenchTarget{url: u, session: resp.Header.Get("Mcp-Session-Id")}
	timedPost(b, hc, t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return t
}

func timedPost(b *testing.B, hc *http.Client, t httpBenchTarget, body string) time.Duration {
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, t.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", t.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode >= 300 || (strings.Contains(body, `"id"`) && !bytes.Contains(got, []byte(`"result"`))) {
		b.Fatalf("%s: %d %s", t.url, resp.StatusCode, got)
	}
	return d
}

// ---- A proxy serving HTTP (--listen), raw HTTP sessions, the TypeScript HTTP client ----

// httpReport is what the HTTP tests read beyond fileReport.
type httpReport struct {
	Transport struct{ Agent, Upstream string } `json:"transport"`
	Report    struct {
		Operations []struct {
			AttemptLog []struct {
				Fault string `json:"fault"`
			} `json:"attemptLog"`
		} `json:"operations"`
	} `json:"report"`
}

func (p *httpProxy) readHTTPReport() httpReport {
	p.t.Helper()
	return readJSONFile[httpReport](p.t, p.report)
}

// httpProxy is a proxy serving MCP Streamable HTTP (--listen 0) in front
// of the test upstream, with a report file and the upstream's counts file.
type httpProxy struct {
	stdioProxy
	url string
}

// startHTTPProxy starts `agent-harness proxy --listen 0` with args before
// the upstream command and waits for its "listening on URL" line.
func startHTTPProxy(t testing.TB, args ...string) *httpProxy {
	t.Helper()
	return startHTTPProxyReport(t, true, args...)
}

// startHTTPProxyReport is startHTTPProxy, with or without a report file.
func startHTTPProxyReport(t testing.TB, withReport bool, args ...string) *httpProxy {
	t.Helper()
	proxy, upstream := binaries(t)
	dir := t.TempDir()
	p := &httpProxy{stdioProxy: stdioProxy{t: t, stderr: &lineLog{added: make(chan struct{})},
		report: filepath.Join(dir, "report.json"), counts: filepath.Join(dir, "counts.json"), exited: make(chan struct{})}}
	full := []string{"proxy", "--listen", "0"}
	if withReport {
		full = append(full, "--report-file", p.report)
	}
	full = append(full, args...)
	if !slices.Contains(args, "--upstream-url") && !slices.Contains(args, "--") {
		full = append(full, "--", upstream, "-counts-file", p.counts)
	}
	p.cmd = exec.Command(proxy, full...)
	p.cmd.Stdin = nil
	var out bytes.Buffer
	p.cmd.Stdout = &out
	pr, pw := io.Pipe()
	p.cmd.Stderr = pw
	if err := p.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(pr)
		for sc.Scan() {
			p.stderr.add(sc.Text())
		}
	}()
	go func() {
		p.exitErr = p.cmd.Wait()
		pw.Close()
		if out.Len() > 0 {
			p.exitErr = fmt.Errorf("the proxy wrote to stdout in --listen mode: %q", out.String())
		}
		close(p.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	})
	line := p.stderr.waitFor(t, "listening on ")
	p.url = line[strings.Index(line, "listening on ")+len("listening on "):]
	return p
}

// stop sends sig and returns the exit code.
func (p *httpProxy) stop(sig syscall.Signal) int {
	p.t.Helper()
	_ = p.cmd.Process.Signal(sig)
	return p.waitExit()
}

func (p *httpProxy) waitExit() int {
	p.t.Helper()
	<-p.exited
	var ee *exec.ExitError
	if p.exitErr != nil && !errors.As(p.exitErr, &ee) {
		p.t.Fatal(p.exitErr)
	}
	return p.cmd.ProcessState.ExitCode()
}

// rawSession is an HTTP client speaking Streamable HTTP by hand.
type rawSession struct {
	t   *testing.T
	url string
	id  string // Mcp-Session-Id
	hc  *http.Client
	// extra are header name, value pairs sent with every POST.
	extra []string
}

func (s *rawSession) post(body string, header ...string) *http.Response {
	s.t.Helper()
	req, err := http.NewRequest(http.MethodPost, s.url, strings.NewReader(body))
	if err != nil {
		s.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if s.id != "" {
		req.Header.Set("Mcp-Session-Id", s.id)
	}
	header = append(append([]string(nil), s.extra...), header...)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := s.hc.Do(req)
	if err != nil {
		s.t.Fatalf("POST %s: %v", body, err)
	}
	return resp
}

// initialize performs the handshake and keeps the session id.
func (s *rawSession) initialize() {
	s.t.Helper()
	resp := s.post(rpcRequest("1", "initialize", initializeParams))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"protocolVersion"`)) {
		s.t.Fatalf("initialize: %d %s", resp.StatusCode, b)
	}
	s.id = resp.Header.Get("Mcp-Session-Id")
	if s.id == "" {
		s.t.Fatal("initialize answer without Mcp-Session-Id")
	}
	resp = s.post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	resp.Body.Close()
	if resp.StatusCode != http.StatusAccepted {
		s.t.Fatalf("notifications/initialized: %d, want 202", resp.StatusCode)
	}
}

func newRawSession(t *testing.T, url string) *rawSession {
	// No keep-alive: a dropped connection is the request's own.
	return &rawSession{t: t, url: url, hc: &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: sessionWait}}
}

// tsHTTPClient runs testdata/npm/tshttpclient.mjs against url, or skips.
func tsHTTPClient(t *testing.T, url, config string) map[string]any {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		skipInterop(t, missingNode)
	}
	root := repoRoot(t)
	if _, err := os.Stat(filepath.Join(nodeModules(t), "@modelcontextprotocol", "sdk")); err != nil {
		skipInterop(t, missingNPM)
	}
	ctx, cancel := context.WithTimeout(context.Background(), sessionWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, filepath.Join(root, "testdata", "npm", "tshttpclient.mjs"), url, config)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("tshttpclient: %v\n%s", err, stderr.String())
	}
	var res map[string]any
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("tshttpclient output %q: %v", out, err)
	}
	return res
}

// ---- The HTTP test upstream and its report ----

// httpUpstream is testdata/httpupstream running on a free loopback port.
type httpUpstream struct {
	url, counts string
}

// startHTTPUpstream starts the go-sdk Streamable HTTP test upstream with
// args and returns its URL (its first stdout line).
func startHTTPUpstream(t testing.TB, args ...string) httpUpstream {
	t.Helper()
	u := httpUpstream{counts: filepath.Join(t.TempDir(), "counts.json")}
	cmd := exec.Command(built(t, "httpupstream"), append([]string{"-counts-file", u.counts}, args...)...)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("httpupstream: %v", err)
	}
	u.url = strings.TrimSpace(line)
	return u
}

// executions is the upstream's own count of create_booking executions.
func (u httpUpstream) executions(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile(u.counts)
	if os.IsNotExist(err) {
		return 0
	}
	var c map[string]int
	if err != nil || json.Unmarshal(b, &c) != nil {
		t.Fatalf("counts file: %v %s", err, b)
	}
	return c["create_booking"]
}

// upstreamReport is what these tests read of the report file.
type upstreamReport struct {
	Verdict   string
	Sessions  []struct{ ID, Transport string } `json:"sessions"`
	Transport struct{ Agent, Upstream string } `json:"transport"`
	Report    struct {
		Operations []struct {
			Tool       string `json:"tool"`
			Executions int    `json:"executions"`
			Outcome    string `json:"outcome"`
		} `json:"operations"`
	} `json:"report"`
}

func readUpstreamReport(t *testing.T, path string) (upstreamReport, []byte) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var r upstreamReport
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report: %v\n%s", err, b)
	}
	return r, b
}

func (r upstreamReport) executions(tool string) int {
	n := 0
	for _, op := range r.Report.Operations {
		if op.Tool == tool {
			n += op.Executions
		}
	}
	return n
}

// ---- Bounded requests and a booking call ----

// requestWithin is peer.request bounded by d instead of maxWait.
func requestWithin(t *testing.T, p *peer, d time.Duration, id, method, params string) []byte {
	t.Helper()
	p.send(rpcRequest(id, method, params))
	deadline := time.After(d)
	for {
		select {
		case m, ok := <-p.lines:
			if !ok {
				t.Fatalf("the proxy closed its output; stderr:\n%s", p.stderr.String())
			}
			var env struct {
				ID     json.RawMessage `json:"id"`
				Method string          `json:"method"`
			}
			_ = json.Unmarshal(m, &env)
			if env.Method == "" && string(env.ID) == id {
				return m
			}
		case <-deadline:
			t.Fatalf("no answer to %s within %s; stderr:\n%s", id, d, p.stderr.String())
		}
	}
}

const bookingCall = `{"name":"create_booking","arguments":{"room":"9"}}`

// ---- npm MCP servers as upstreams ----

// npmServer returns the command line of an npm MCP server installed by
// `npm ci --prefix testdata/npm`, or skips the test.
func npmServer(t *testing.T, pkg string) []string {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		skipInterop(t, missingNode)
	}
	script := filepath.Join(nodeModules(t), "@modelcontextprotocol", pkg, "dist", "index.js")
	if _, err := os.Stat(script); err != nil {
		skipInterop(t, missingNPM)
	}
	return []string{node, script}
}

// ---- A stdio proxy in front of the counting upstream, with a report file (stdioProxy) ----

// sessionWait bounds every wait for the proxy: a safety net against hangs, not
// a synchronisation.
const sessionWait = 30 * time.Second

// binaries returns the built agent-harness and test upstream (built
// once per test binary by the e2e harness).
func binaries(t testing.TB) (proxy, upstream string) {
	t.Helper()
	return built(t, "agent-harness"), built(t, "upstream")
}

// stdioProxy is one running proxy with the test as its agent.
type stdioProxy struct {
	t      testing.TB
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	msgs   chan json.RawMessage // every line the proxy wrote to stdout
	stderr *lineLog
	report string // --report-file path
	counts string // the upstream's counts file
	nextID int
	// pending holds messages read while waiting for another id.
	pending []json.RawMessage
	exited  chan struct{}
	exitErr error
}

// lineLog collects stderr lines and lets a test wait for one.
type lineLog struct {
	mu    sync.Mutex
	lines []string
	added chan struct{} // closed and replaced on every new line
}

func (l *lineLog) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
	close(l.added)
	l.added = make(chan struct{})
}

func (l *lineLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// waitFor blocks until a line contains sub.
func (l *lineLog) waitFor(t testing.TB, sub string) string {
	t.Helper()
	deadline := time.After(sessionWait)
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

// startSession starts the proxy in front of the upstream with --report-file
// in a fresh directory (unless args has one) and initializes the session.
func startSession(t testing.TB, args ...string) *stdioProxy {
	t.Helper()
	proxy, upstream := binaries(t)
	dir := t.TempDir()
	p := &stdioProxy{t: t, report: filepath.Join(dir, "report.json"), counts: filepath.Join(dir, "counts.json"),
		msgs: make(chan json.RawMessage, 1024), stderr: &lineLog{added: make(chan struct{})}, exited: make(chan struct{})}
	full := []string{"proxy", "--upstream-command", upstream, "--upstream-arg=-counts-file", "--upstream-arg", p.counts}
	if !slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "--report-file") }) {
		full = append(full, "--report-file", p.report)
	}
	full = append(full, args...)
	launchSession(t, p, proxy, full)
	return p
}

// launchSession starts the proxy binary with the full command line for p and
// initializes the session.
func launchSession(t testing.TB, p *stdioProxy, proxy string, full []string) {
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
	p.cmd.Stderr = &lineWriter{l: p.stderr}
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

// lineWriter adds each complete line written to it to l.
type lineWriter struct {
	l    *lineLog
	part []byte
}

func (w *lineWriter) Write(b []byte) (int, error) {
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

func (p *stdioProxy) writeLine(s string) {
	p.t.Helper()
	if _, err := io.WriteString(p.stdin, s+"\n"); err != nil {
		p.t.Fatalf("writing to the proxy: %v", err)
	}
}

func (p *stdioProxy) notify(method, params string) {
	p.writeLine(`{"jsonrpc":"2.0","method":"` + method + `","params":` + params + `}`)
}

// send sends a request and returns its id.
func (p *stdioProxy) send(method, params string) int {
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
func (p *stdioProxy) await(id int) rpcResponse {
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
	deadline := time.After(sessionWait)
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

func (p *stdioProxy) request(method, params string) rpcResponse {
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

func (p *stdioProxy) sendCall(tool, args string) int {
	return p.send("tools/call", `{"name":"`+tool+`","arguments":`+args+`}`)
}

func (p *stdioProxy) awaitCall(id int) toolResult {
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
func (p *stdioProxy) call(tool, args string) toolResult {
	p.t.Helper()
	return p.awaitCall(p.sendCall(tool, args))
}

// finish closes the agent's side and returns the exit code.
func (p *stdioProxy) finish() int {
	p.t.Helper()
	p.stdin.Close()
	return p.waitExit()
}

func (p *stdioProxy) waitExit() int {
	p.t.Helper()
	select {
	case <-p.exited:
	case <-time.After(sessionWait):
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
func (p *stdioProxy) readReport() fileReport {
	p.t.Helper()
	return readJSONFile[fileReport](p.t, p.report)
}

// readJSONFile reads the JSON file at path into a T; a file that cannot be
// read or does not parse fails the test.
func readJSONFile[T any](t testing.TB, path string) T {
	t.Helper()
	var v T
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, b)
	}
	return v
}

// upstreamExecutions are the upstream's own execution counts per write
// tool (from its counts file; absent when nothing executed).
func (p *stdioProxy) upstreamExecutions() map[string]int {
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
func (p *stdioProxy) checkExecutions(r fileReport) {
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
	timeoutText = "Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown."
	bookingArgs = `{"room":"12","date":"2026-11-03"}`
)

// killByArg kills the processes whose command line contains arg.
func killByArg(arg string) {
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

// ---- Soak: the report against what the upstream executed ----

// soakCompare checks the finished report's executions against the
// upstream's counts file, operation by operation.
func soakCompare(t testing.TB, p *stdioProxy, when string) {
	t.Helper()
	var rep struct {
		Status string `json:"status"`
		Report struct {
			Operations []struct {
				Tool       string          `json:"tool"`
				Arguments  json.RawMessage `json:"arguments"`
				Executions int             `json:"executions"`
			} `json:"operations"`
		} `json:"report"`
	}
	raw, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("report file: %v\n%s", err, raw)
	}
	if rep.Status != "finished" {
		t.Errorf("report status %q, want finished", rep.Status)
	}
	got := map[string]int{}
	for _, op := range rep.Report.Operations {
		if op.Executions > 0 {
			got[op.Tool+" "+soakCanonical(t, op.Arguments)] += op.Executions
		}
	}
	want := map[string]int{}
	if b, err := os.ReadFile(p.counts); err == nil {
		var c struct {
			StructuredContent struct {
				Counts []struct {
					Tool      string          `json:"tool"`
					Arguments json.RawMessage `json:"arguments"`
					Count     int             `json:"count"`
				} `json:"counts"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("counts file: %v", err)
		}
		for _, e := range c.StructuredContent.Counts {
			if e.Tool == "book_room" {
				want[e.Tool+" "+soakCanonical(t, e.Arguments)] += e.Count
			}
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if a, b := soakDump(got), soakDump(want); a != b {
		t.Errorf("executions by operation differ (%s)\n report: %s\nupstream: %s\nstderr:\n%s", when, a, b, p.stderr)
	}
}

// soakCanonical re-encodes a JSON object with sorted keys.
func soakCanonical(t testing.TB, raw json.RawMessage) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("arguments %s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func soakDump(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s=%d; ", k, m[k])
	}
	return sb.String()
}

// ---- Traces: re-judging a trace against the live report ----

// harnessRun is one run of the built binary outside proxy mode.
type harnessRun struct {
	code           int
	stdout, stderr string
}

func runHarness(t testing.TB, args ...string) harnessRun {
	t.Helper()
	proxy, _ := binaries(t)
	cmd := exec.Command(proxy, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return harnessRun{code: code, stdout: out.String(), stderr: errb.String()}
}

// rejudge runs `judge TRACE --report-file F flags...` and returns the run
// and the report file it wrote.
func rejudge(t testing.TB, tracePath string, flags ...string) (harnessRun, []byte) {
	t.Helper()
	rf := filepath.Join(t.TempDir(), "rejudged.json")
	r := runHarness(t, append([]string{"judge", tracePath, "--report-file", rf}, flags...)...)
	b, err := os.ReadFile(rf)
	if err != nil {
		t.Fatalf("judge wrote no report file (exit %d): %v\nstderr: %s", r.code, err, r.stderr)
	}
	return r, b
}

// withoutStatus is a report file's canonical JSON without its status (the
// one field a re-judging does not reproduce).
func withoutStatus(t testing.TB, raw []byte) string {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatalf("report does not parse: %v\n%s", err, raw)
	}
	delete(m, "status")
	b, _ := json.Marshal(m)
	return sortedJSON(t, b)
}

// checkRejudged: judging the trace again with the recorded settings gives
// the live report, and the verdict as exit code.
func checkRejudged(t *testing.T, p *stdioProxy, tracePath string) {
	t.Helper()
	live, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	r, offline := rejudge(t, tracePath)
	if a, b := withoutStatus(t, live), withoutStatus(t, offline); a != b {
		t.Errorf("re-judged report differs from the live one\nlive:    %s\noffline: %s", a, b)
	}
	var f fileReport
	_ = json.Unmarshal(live, &f)
	if want := map[string]int{"PASS": 0, "FAIL": 1, "NOT_TESTED": 3}[f.Verdict]; r.code != want {
		t.Errorf("judge exit %d for %s, want %d; stderr: %s", r.code, f.Verdict, want, r.stderr)
	}
	if r.stderr != "" {
		t.Errorf("judge stderr: %s", r.stderr)
	}
	// Classifying again from the recorded definitions with the same
	// settings (a flag given with its recorded value) gives the same.
	if _, again := rejudge(t, tracePath, "--key-fields", "idempotency_key"); withoutStatus(t, again) != withoutStatus(t, live) {
		t.Errorf("re-classified report differs from the live one\nlive:    %s\noffline: %s", withoutStatus(t, live), withoutStatus(t, again))
	}
	if !strings.HasPrefix(r.stdout, "# agent-harness report: "+f.Verdict+"\n") {
		t.Errorf("judge stdout starts %.80q", r.stdout)
	}
	// report renders the same Markdown from the file.
	if md := runHarness(t, "report", p.report); md.stdout != r.stdout || md.code != r.code {
		t.Errorf("report --format markdown (exit %d) differs from judge's output (exit %d):\n%s\n---\n%s", md.code, r.code, md.stdout, r.stdout)
	}
}
