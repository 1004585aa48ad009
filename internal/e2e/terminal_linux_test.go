package e2e

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"
)

// openPTY opens a pseudo-terminal and returns its controller and its
// terminal end (Linux: /dev/ptmx, unlocked, /dev/pts/N).
func openPTY(t *testing.T) (ptmx, tty *os.File) {
	t.Helper()
	ptmx, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Skipf("no pseudo-terminal: %v", err)
	}
	t.Cleanup(func() { ptmx.Close() })
	var unlock int32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCSPTLCK, uintptr(unsafe.Pointer(&unlock))); e != 0 {
		t.Fatalf("unlock pty: %v", e)
	}
	var n uint32
	if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, ptmx.Fd(), syscall.TIOCGPTN, uintptr(unsafe.Pointer(&n))); e != 0 {
		t.Fatalf("pty number: %v", e)
	}
	tty, err = os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		t.Fatalf("open pty: %v", err)
	}
	t.Cleanup(func() { tty.Close() })
	return ptmx, tty
}

// terminalHint is the line a proxy with a terminal as stdin writes to
// stderr (behaviour §2.8; the text of cmd/agent-harness's terminalHint).
const terminalHint = "[agent-harness] proxy: stdin is a terminal, but the proxy speaks MCP (JSON-RPC) on stdin and stdout and is meant to be started by an MCP client (README: Configuring an MCP client); waiting for MCP messages on stdin\n"

// TestProxyInATerminal: a proxy started by hand in a terminal (stdin a
// TTY, no client) says on stderr, in one line, that it speaks MCP on stdin
// and should be started by a client — and carries on: it answers an
// initialize typed into the terminal and ends on SIGTERM with 143. With
// stdin a pipe (a client) it says nothing of the kind.
func TestProxyInATerminal(t *testing.T) {
	t.Parallel()
	ptmx, tty := openPTY(t)
	cmd := exec.Command(built(t, "agent-harness"), append([]string{"proxy", "--audit-tools", "off"}, upstreamFlags(t)...)...)
	cmd.Stdin = tty
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		select {
		case <-exited:
		default:
			_ = cmd.Process.Kill()
			<-exited
		}
	})

	errLines := make(chan string, 64)
	go func() {
		s := bufio.NewScanner(stderr)
		for s.Scan() {
			errLines <- s.Text()
		}
		close(errLines)
	}()
	deadline := time.After(maxWait) // a bound, not a synchronisation
	var seen []string
	for found := false; !found; {
		select {
		case l, ok := <-errLines:
			if !ok {
				t.Fatalf("stderr closed without the terminal line:\n%s", strings.Join(seen, "\n"))
			}
			seen = append(seen, l)
			found = l+"\n" == terminalHint
		case <-deadline:
			t.Fatalf("no terminal line within %s:\n%s", maxWait, strings.Join(seen, "\n"))
		}
	}

	// It carries on: an initialize typed into the terminal is answered.
	if _, err := io.WriteString(ptmx, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":`+initializeParams+"}\n"); err != nil {
		t.Fatal(err)
	}
	out := make(chan string, 1)
	go func() {
		line, _ := bufio.NewReader(stdout).ReadString('\n')
		out <- line
	}()
	select {
	case line := <-out:
		if !strings.HasPrefix(line, `{"jsonrpc":"2.0","id":1,"result":`) {
			t.Fatalf("answer to the typed initialize: %q", line)
		}
	case <-deadline:
		t.Fatalf("no answer to the typed initialize within %s", maxWait)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	go func() {
		for l := range errLines {
			seen = append(seen, l)
		}
	}()
	select {
	case <-exited:
	case <-deadline:
		t.Fatalf("the proxy did not end after SIGTERM within %s", maxWait)
	}
	if code := cmd.ProcessState.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit %d after SIGTERM, want 143", code)
	}

	p := startProxy(t, nil, append([]string{"--audit-tools", "off"}, upstreamFlags(t)...)...)
	p.initialize()
	p.stdin.Close()
	<-p.exited
	if strings.Contains(p.stderr.String(), "stdin is a terminal") {
		t.Errorf("a proxy whose stdin is a pipe said it is a terminal:\n%s", p.stderr.String())
	}
}
