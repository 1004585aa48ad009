package campaign

import (
	"bytes"
	"os/exec"
	"runtime"
	"strconv"
	"sync"
	"syscall"
)

// started are the processes startChild started and has not reaped yet.
// Its lock is held while a child is forked and while adopted orphans are
// reaped, so a child being started is never taken for an adopted one.
var started = struct {
	sync.Mutex
	pids map[int]bool
}{pids: map[int]bool{}}

// startChild starts cmd in its own process group with SIGKILL as its
// parent-death signal on Linux (behaviour §9.4: nothing a campaign starts
// outlives it, also after kill -9) and returns the channel of cmd.Wait's
// result. The parent-death signal fires when the thread that forked the
// child exits, so the fork runs on a thread locked to a goroutine that
// keeps it until the child was reaped (as internal/proc).
func startChild(cmd *exec.Cmd) (<-chan error, error) {
	cmd.SysProcAttr = childAttr()
	errc := make(chan error, 1)
	done := make(chan error, 1)
	go func() {
		runtime.LockOSThread()
		defer runtime.UnlockOSThread()
		started.Lock()
		err := cmd.Start()
		if err == nil {
			started.pids[cmd.Process.Pid] = true
		}
		started.Unlock()
		errc <- err
		if err != nil {
			return
		}
		werr := cmd.Wait()
		started.Lock()
		delete(started.pids, cmd.Process.Pid)
		started.Unlock()
		done <- werr
	}()
	if err := <-errc; err != nil {
		return nil, err
	}
	return done, nil
}

// AdoptOrphans makes the campaign a child subreaper (Linux): a process of
// a run whose parent exits (a proxy the agent started detached, with
// setsid) becomes the campaign's child instead of init's, so it is found,
// stopped and reaped with its run. Call it once, before any run, in a
// process whose children are all started by the Runner. Elsewhere than on
// Linux it returns an error and changes nothing.
func AdoptOrphans() error { return setSubreaper() }

// statFields reads the state, the parent and the process group from
// /proc/PID/stat: "pid (comm) state ppid pgrp …", where comm may contain
// anything.
func statFields(stat []byte) (state byte, ppid, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, 0, false
	}
	pp, err1 := strconv.Atoi(string(f[1]))
	g, err2 := strconv.Atoi(string(f[2]))
	return f[0][0], pp, g, err1 == nil && err2 == nil
}

// signalAll sends sig to the process group pgid and to every pid.
func signalAll(pgid int, pids []int, sig syscall.Signal) {
	if pgid > 0 {
		_ = syscall.Kill(-pgid, sig)
	}
	for _, p := range pids {
		_ = syscall.Kill(p, sig)
	}
}
