package campaign

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/cuonztech/agent-harness/internal/proc"
)

// ProxyStderrFile holds the stderr of a run's proxy the campaign started
// itself (--agent-transport http).
const ProxyStderrFile = "proxy.stderr"

// listenWait bounds the wait for a started proxy's "listening on URL" line.
const listenWait = 30 * time.Second

// httpProxy is a run's proxy serving Streamable HTTP on a loopback port.
type httpProxy struct {
	cmd  *exec.Cmd
	done chan struct{}
	url  string

	mu   sync.Mutex
	last string // the last stderr line, for a proxy that did not listen
}

// startHTTPProxy starts the run's proxy with --listen 127.0.0.1:0 in its
// own process group and waits for the URL it prints. A proxy that exits or
// prints no URL in time is returned with url "" (the run is then
// NOT_TESTED); an error is only a failure to run anything at all.
func (r *Runner) startHTTPProxy(ctx context.Context, u Unit, dir, report string) (*httpProxy, error) {
	args := append([]string{"proxy", "--listen", "127.0.0.1:0"}, r.proxyArgs(u, report)[1:]...)
	if !hasFlag(args, "exit-when-idle") {
		// Ends the proxy of a campaign that died (behaviour §9.4) where no
		// parent-death signal does: never while the agent may still use it.
		args = append(args, "--exit-when-idle="+min(r.AgentTimeout+2*r.grace(), 24*time.Hour).String())
	}
	cmd := exec.Command(r.Proxy, args...)
	cmd.Dir = r.Dir
	cmd.Env = r.Env
	logFile, err := os.Create(filepath.Join(dir, ProxyStderrFile))
	if err != nil {
		return nil, err
	}
	pr, pw := io.Pipe()
	cmd.Stderr = pw
	hp := &httpProxy{cmd: cmd, done: make(chan struct{})}
	waited, err := proc.StartCmd(cmd)
	if err != nil {
		logFile.Close()
		hp.last = err.Error()
		close(hp.done)
		return hp, nil
	}
	urls := make(chan string, 1)
	go func() {
		defer logFile.Close()
		sc := bufio.NewScanner(pr)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			line := sc.Text()
			fmt.Fprintln(logFile, line)
			hp.mu.Lock()
			hp.last = line
			hp.mu.Unlock()
			if rest, ok := strings.CutPrefix(line, "[agent-harness] listening on "); ok {
				select {
				case urls <- strings.TrimSpace(rest):
				default:
				}
			}
		}
		_, _ = io.Copy(logFile, pr)
	}()
	go func() {
		<-waited
		_ = pw.Close()
		close(hp.done)
	}()
	t := time.NewTimer(listenWait)
	defer t.Stop()
	select {
	case hp.url = <-urls:
	case <-hp.done:
	case <-t.C:
		hp.setLast(fmt.Sprintf("no URL within %s", listenWait))
	case <-ctx.Done():
	}
	return hp, nil
}

func (hp *httpProxy) setLast(s string) {
	hp.mu.Lock()
	hp.last = s
	hp.mu.Unlock()
}

// failure says why the proxy did not listen.
func (hp *httpProxy) failure() error {
	hp.mu.Lock()
	defer hp.mu.Unlock()
	if hp.last == "" {
		return errors.New("it exited without a word")
	}
	return errors.New(strings.TrimPrefix(hp.last, "[agent-harness] "))
}

// pid is the proxy's process id, 0 for none.
func (hp *httpProxy) pid() int {
	if hp == nil || hp.cmd.Process == nil {
		return 0
	}
	return hp.cmd.Process.Pid
}

// hasFlag reports whether args hold --name or --name=….
func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == "--"+name || strings.HasPrefix(a, "--"+name+"=") {
			return true
		}
	}
	return false
}

// stop ends the proxy as a signal does (its final report is then
// written) and waits for its end: SIGTERM to its group, SIGKILL after
// grace. Once it has ended, stop does nothing.
func (hp *httpProxy) stop(grace time.Duration) {
	if hp == nil || hp.cmd.Process == nil {
		return
	}
	select {
	case <-hp.done:
		return
	default:
	}
	pgid := hp.cmd.Process.Pid
	_ = proc.SignalGroup(pgid, syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-hp.done:
	case <-t.C:
		_ = proc.SignalGroup(pgid, syscall.SIGKILL)
		<-hp.done
	}
}
