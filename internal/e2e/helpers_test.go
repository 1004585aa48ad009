// Package e2e holds the end-to-end tests of agent-harness: each runs the
// built binary as a real process, in front of real upstream processes (the
// test programs under testdata/), acting as the agent over pipes, a
// loopback HTTP connection or a pseudo-terminal. They assert only what a
// user observes: bytes on the wire, report and trace files, exit codes and
// stderr lines. Tests that call unexported functions of the command stay
// in cmd/agent-harness.
//
// This file is the package's one set of shared helpers: the binaries,
// built once per test process (e2eBinary), the agent's side of a session
// (startPeer, startProxy, (*peer).request, …), runBuilt for a one-shot
// command, and the process checks of the orphan tests.
package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The documented exit codes of agent-harness (behaviour §13.1), as numbers: these
// tests assert what a user's script sees, not the command's constants.
const (
	exitOK               = 0
	exitVerdictFail      = 1
	exitUsage            = 2
	exitVerdictNotTested = 3
)

// e2eWait bounds every wait for a message or an exit, so a broken proxy
// fails the test instead of hanging it. It is not a synchronisation sleep.
const e2eWait = 60 * time.Second

var (
	e2eDirOnce sync.Once
	e2eDir     string
	e2eDirErr  error

	e2eBuildMu sync.Mutex
	e2eBuilt   = map[string]string{}
)

// e2ePackages are the programs e2e tests run, by short name.
var e2ePackages = map[string]string{
	"agent-harness": "github.com/cuonztech/agent-harness/cmd/agent-harness",
	// The same program never built with -race: for the roles around the
	// process under test (campaign tests' sample server and reference
	// agent), where the race detector's start-up cost adds up over
	// hundreds of processes.
	"agent-harness-plain": "github.com/cuonztech/agent-harness/cmd/agent-harness",
	"upstream":            "./testdata/upstream",
	"sdkupstream":         "./testdata/sdkupstream",
	"byterelay":           "./testdata/byterelay",
	"httpupstream":        "./testdata/httpupstream",
}

func TestMain(m *testing.M) {
	if raceEnabled {
		noRaceExitSleep()
	}
	code := m.Run()
	printInteropSkips()
	if e2eDir != "" {
		os.RemoveAll(e2eDir)
	}
	os.Exit(code)
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

// e2eBinary builds the named program once per test binary and returns its
// path. The proxy is built with -race when the tests are.
func e2eBinary(tb testing.TB, name string) string {
	tb.Helper()
	e2eDirOnce.Do(func() { e2eDir, e2eDirErr = os.MkdirTemp("", "agent-harness-e2e-") })
	if e2eDirErr != nil {
		tb.Fatalf("create build dir: %v", e2eDirErr)
	}
	e2eBuildMu.Lock()
	defer e2eBuildMu.Unlock()
	if p, ok := e2eBuilt[name]; ok {
		return p
	}
	pkg, ok := e2ePackages[name]
	if !ok {
		tb.Fatalf("no e2e program %q", name)
	}
	out := filepath.Join(e2eDir, name)
	args := []string{"build", "-o", out}
	if raceEnabled && name == "agent-harness" {
		args = append(args, "-race")
	}
	cmd := exec.Command("go", append(args, pkg)...)
	cmd.Dir = repoRoot(tb)
	if b, err := cmd.CombinedOutput(); err != nil {
		tb.Fatalf("go build %s: %v\n%s", pkg, err, b)
	}
	e2eBuilt[name] = out
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
	return startPeer(tb, env, e2eBinary(tb, "agent-harness"), append([]string{"proxy"}, flags...)...)
}

// upstreamFlags are the proxy flags that start the test upstream with args.
func upstreamFlags(tb testing.TB, args ...string) []string {
	flags := []string{"--upstream-command", e2eBinary(tb, "upstream")}
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
	case <-time.After(e2eWait):
		p.t.Fatalf("no message within %s; stderr:\n%s", e2eWait, p.stderr.String())
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
	timeout := time.After(e2eWait)
	for open := true; open; {
		select {
		case m, ok := <-p.lines:
			if !ok {
				open = false
				break
			}
			rest = append(rest, m)
		case <-timeout:
			p.t.Fatalf("peer did not end within %s; stderr:\n%s", e2eWait, p.stderr.String())
		}
	}
	select {
	case <-p.exited:
	case <-timeout:
		p.t.Fatalf("peer did not exit within %s; stderr:\n%s", e2eWait, p.stderr.String())
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
