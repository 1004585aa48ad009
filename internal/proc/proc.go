// Package proc starts the upstream MCP server as a child process in its own
// process group and stops the whole group: close stdin, wait, SIGTERM, wait,
// SIGKILL — so wrappers such as `sh -c` or `npx` leave no orphans.
//
// On Linux two more guards hold (see AdoptOrphans and Start):
//   - the upstream gets SIGKILL when the proxy dies, also by kill -9
//     (the parent-death signal), so one that ignores stdin EOF does not
//     outlive it;
//   - with AdoptOrphans, descendants that left the group (setsid) or lost
//     their parent are re-parented to the proxy (a child subreaper) and
//     Stop ends them too.
//
// StartCmd starts any other command the same way (the campaign's agents
// and proxies), and FindProcesses, SignalGroup and SignalAll find and
// stop the processes a run left, so one package owns every child process
// of agent-harness.
package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// Spec says how to start the upstream.
type Spec struct {
	Command string
	Args    []string
	Dir     string   // working directory; "" = the proxy's
	Env     []string // full environment of the child (KEY=VALUE)
}

// Process is a running upstream with pipes to its stdin, stdout and stderr.
type Process struct {
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *os.File
	pgid   int

	done    chan struct{}
	waitErr error

	stopOnce sync.Once
	stopping chan struct{}
}

// Start starts the command in a new process group. The child's stdin,
// stdout and stderr are pipes; read Stdout and Stderr until EOF.
func Start(s Spec) (*Process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("create stdin pipe: %w", err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW)
		return nil, fmt.Errorf("create stdout pipe: %w", err)
	}
	errR, errW, err := os.Pipe()
	if err != nil {
		closeAll(inR, inW, outR, outW)
		return nil, fmt.Errorf("create stderr pipe: %w", err)
	}
	cmd := exec.Command(s.Command, s.Args...)
	cmd.Dir = s.Dir
	cmd.Env = s.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, errW
	cmd.SysProcAttr = sysProcAttr()
	p := &Process{
		cmd: cmd, stdin: inW, stdout: outR, stderr: errR,
		done:     make(chan struct{}),
		stopping: make(chan struct{}),
	}
	waited, err := startLocked(cmd)
	if err != nil {
		closeAll(inR, inW, outR, outW, errR, errW)
		return nil, err
	}
	// The child holds its own copies; ours would keep the pipes open.
	closeAll(inR, outW, errW)
	p.pgid = cmd.Process.Pid
	go func() {
		p.waitErr = <-waited
		close(p.done)
	}()
	return p, nil
}

// StartCmd starts cmd as Start starts an upstream — in a new process
// group, with SIGKILL as its parent-death signal on Linux, registered as
// started so AdoptOrphans's reaping and FindProcesses never take it for an
// adopted orphan — and returns the channel of cmd.Wait's result, which
// StartCmd calls. It sets cmd.SysProcAttr; the caller sets everything else
// (path, arguments, environment, standard streams) and must not call Wait.
func StartCmd(cmd *exec.Cmd) (<-chan error, error) {
	cmd.SysProcAttr = sysProcAttr()
	return startLocked(cmd)
}

// startLocked starts cmd and waits for it on a goroutine locked to its OS
// thread, and returns the channel of the wait's result. The parent-death
// signal fires when the thread that forked the child exits, not the
// process, and the Go runtime ends a thread whose goroutine exits while
// locked to it. So the fork runs on a thread locked to this goroutine,
// which keeps it until the child was reaped: no other goroutine can end
// that thread while the child runs. The child is in children from the
// fork to the reaping.
func startLocked(cmd *exec.Cmd) (<-chan error, error) {
	started := make(chan error, 1)
	waited := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		children.Lock()
		err := cmd.Start()
		if err == nil {
			children.started[cmd.Process.Pid] = true
		}
		children.Unlock()
		started <- err
		if err != nil {
			return
		}
		werr := cmd.Wait()
		children.Lock()
		delete(children.started, cmd.Process.Pid)
		children.Unlock()
		waited <- werr
	}()
	if err := <-started; err != nil {
		return nil, err
	}
	return waited, nil
}

func closeAll(fs ...*os.File) {
	for _, f := range fs {
		f.Close()
	}
}

// Pid is the process id of the upstream (also its process group id).
func (p *Process) Pid() int { return p.pgid }

// Stdin is the write end of the child's stdin (a non-blocking pipe).
func (p *Process) Stdin() *os.File { return p.stdin }

// Stdout is the read end of the child's stdout (a non-blocking pipe).
func (p *Process) Stdout() *os.File { return p.stdout }

// Stderr is the read end of the child's stderr.
func (p *Process) Stderr() io.Reader { return p.stderr }

// Done is closed when the child process (the group leader) has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Stopping is closed when Stop was called.
func (p *Process) Stopping() <-chan struct{} { return p.stopping }

// ExitDescription describes how the child ended, e.g. "exit status 3" or
// "signal: killed"; valid after Done.
func (p *Process) ExitDescription() string {
	if p.waitErr == nil {
		return "exit status 0"
	}
	var ee *exec.ExitError
	if errors.As(p.waitErr, &ee) {
		return ee.String()
	}
	return p.waitErr.Error()
}

// killWait bounds the wait, after SIGKILL, for the group's members to be
// gone. SIGKILL cannot be ignored, but it is delivered asynchronously: a
// member can still run for a moment after kill(2) returned (longer on a
// loaded machine).
const killWait = 2 * time.Second

// Stop ends the whole process group: it closes the child's stdin, waits up
// to grace for the child to exit, sends SIGTERM to the group, waits up to
// grace for the group to be gone, then sends SIGKILL and waits until no
// member of the group runs any more (zombies nobody reaps count as gone),
// at most max(grace, killWait). It returns when the child has been reaped
// (or after a last grace period), so no process of the group outlives it.
// With AdoptOrphans, it then ends the processes re-parented to this one
// the same way (stopAdopted). Safe to call more than once.
func (p *Process) Stop(grace time.Duration) {
	p.stopOnce.Do(func() {
		close(p.stopping)
		p.stdin.Close()
		select {
		case <-p.done:
		case <-time.After(grace):
		}
		if groupAlive(p.pgid) {
			_ = kill(-p.pgid, syscall.SIGTERM)
			waitGroupGone(p.pgid, grace)
		}
		if groupAlive(p.pgid) {
			_ = kill(-p.pgid, syscall.SIGKILL)
			waitGroupGone(p.pgid, max(grace, killWait))
		}
		select {
		case <-p.done:
		case <-time.After(grace):
		}
		stopAdopted(grace)
	})
}

// Close closes the proxy's ends of the child's stdout and stderr, which
// ends readers that still wait (a grandchild may hold the pipes open). Call
// it after Stop, once what the child wrote has been read.
func (p *Process) Close() {
	p.stdout.Close()
	p.stderr.Close()
}

// waitGroupGone polls until the process group has no live member, at most d.
func waitGroupGone(pgid int, d time.Duration) {
	deadline := time.Now().Add(d)
	for groupAlive(pgid) && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// groupAlive reports whether the process group still has a member that is
// not a zombie. (Where nothing reaps orphans, killed grandchildren stay
// zombies forever; they are dead and need no more signals.)
func groupAlive(pgid int) bool {
	if err := kill(-pgid, 0); err != nil {
		return errors.Is(err, syscall.EPERM)
	}
	return hasLiveMember(pgid)
}
