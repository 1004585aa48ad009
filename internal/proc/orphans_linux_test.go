package proc

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestStopEndsAdoptedProcesses: with AdoptOrphans, a grandchild that left
// the upstream's process group with setsid — which the group's signals
// never reach — is re-parented to this process when the upstream exits and
// is ended by Stop.
func TestStopEndsAdoptedProcesses(t *testing.T) {
	if _, err := exec.LookPath("setsid"); err != nil {
		t.Skip("needs the setsid command")
	}
	if err := AdoptOrphans(); err != nil {
		t.Fatalf("AdoptOrphans: %v", err)
	}
	tests := []struct {
		name   string
		script string
	}{
		// setsid runs in a background job, not as a group leader, so it
		// calls setsid(2) and execs without forking: $! is the detached
		// process.
		{"detached", `setsid sleep 300 & echo $!; read x`},
		// Ignores SIGTERM (it prints its pid once the trap is set):
		// SIGKILL after the grace; its sleep is then re-parented to this
		// process and ended too.
		{"detached, ignores SIGTERM", `setsid sh -c 'trap "" TERM; echo $$; sleep 300; :' & read x`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Start(Spec{Command: "sh", Args: []string{"-c", tt.script}, Env: os.Environ()})
			if err != nil {
				t.Fatal(err)
			}
			line, err := bufio.NewReader(p.Stdout()).ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			detached, err := strconv.Atoi(strings.TrimSpace(line))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { syscall.Kill(detached, syscall.SIGKILL) })
			p.Stop(100 * time.Millisecond)
			p.Close()
			if !gone(detached) {
				t.Errorf("the detached process %d still runs after Stop", detached)
			}
			if _, err := os.Stat("/proc/" + strconv.Itoa(detached)); err == nil {
				t.Errorf("the detached process %d was not reaped", detached)
			}
			if left := adopted(); len(left) != 0 {
				t.Errorf("processes %v are still this process's children after Stop", left)
			}
		})
	}
}

// TestChildSurvivesTheCallersThread: the parent-death signal fires when
// the thread that forked the child exits. A caller whose goroutine is
// locked to a thread that then ends (as the Go runtime ends a thread whose
// goroutine exits locked) must not take the upstream with it: Start forks
// on a thread of its own.
func TestChildSurvivesTheCallersThread(t *testing.T) {
	type result struct {
		p    *Process
		tid  int
		err  error
		main bool
	}
	ch := make(chan result, 1)
	release := make(chan struct{})
	defer close(release)
	var r result
	for r = (result{main: true}); r.main; r = <-ch {
		go func() {
			runtime.LockOSThread() // never unlocked: the thread ends with the goroutine
			if syscall.Gettid() == os.Getpid() {
				// The main thread never ends (the runtime wedges it):
				// hold it, so that the next try gets another thread.
				ch <- result{main: true}
				<-release
				runtime.UnlockOSThread()
				return
			}
			p, err := Start(Spec{Command: "cat"})
			ch <- result{p: p, tid: syscall.Gettid(), err: err}
		}()
	}
	if r.err != nil {
		t.Fatal(r.err)
	}
	defer func() { r.p.Stop(100 * time.Millisecond); r.p.Close() }()
	task := "/proc/self/task/" + strconv.Itoa(r.tid)
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(task); err != nil {
			break // the thread has exited, and with it any parent-death signal was sent
		}
		if time.Now().After(deadline) {
			t.Fatalf("thread %d did not end", r.tid)
		}
		time.Sleep(time.Millisecond)
	}
	if _, err := io.WriteString(r.p.Stdin(), "ping\n"); err != nil {
		t.Fatalf("write to the child: %v", err)
	}
	got, err := bufio.NewReader(r.p.Stdout()).ReadString('\n')
	if err != nil || got != "ping\n" {
		t.Fatalf("the child did not echo (%q, %v): it died with the caller's thread", got, err)
	}
}
