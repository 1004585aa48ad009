package campaign

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h).
const prSetChildSubreaper = 36

func childAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

func setSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
}

// scope says where runProcesses looks.
type scope struct {
	pgid int    // the agent's process group (0: none)
	dir  string // the run directory ("": none)
	// exclude (0: none) and its descendants do not count (the proxy a
	// campaign started itself).
	exclude int
	// anyone: every process, not only the campaign's descendants (the
	// processes of a killed campaign's attempt belong to init).
	anyone bool
}

// runProcesses returns the live processes of a run (zombies do not count:
// they run no code): the members of the agent's process group and the
// processes whose command line or environment names the run directory —
// the proxy the agent started has its report file there in its arguments,
// detached or not, and an agent and what inherits its environment have
// AGENT_HARNESS_RUN_DIR. Without sc.anyone only the campaign's descendants
// are looked at by name (adopted orphans of a run are its children), which
// spares reading the command line of every process. Adopted orphans that have
// exited are reaped on the way. ok is false without a readable /proc.
func runProcesses(sc scope) (pids []int, ok bool) {
	if nothingLeft(sc) {
		return nil, true
	}
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	self := os.Getpid()
	type proc struct {
		ppid, pgrp int
		zombie     bool
	}
	procs := map[int]proc{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if state, ppid, pgrp, ok := statFields(stat); ok {
			procs[pid] = proc{ppid: ppid, pgrp: pgrp, zombie: state == 'Z' || state == 'X'}
		}
	}
	var zombies []int
	under := func(pid, root int) bool {
		for i := 0; i < 64 && pid > 1; i++ {
			if pid == root {
				return true
			}
			pid = procs[pid].ppid
		}
		return false
	}
	mark := []byte(sc.dir + string(os.PathSeparator))
	env := []byte("\x00AGENT_HARNESS_RUN_DIR=" + sc.dir + "\x00")
	for pid, p := range procs {
		switch {
		case p.zombie && p.ppid == self:
			zombies = append(zombies, pid)
			continue
		case p.zombie, sc.exclude > 0 && under(pid, sc.exclude):
			continue
		case sc.pgid > 0 && p.pgrp == sc.pgid:
			pids = append(pids, pid)
			continue
		case sc.dir == "", !sc.anyone && !under(pid, self):
			continue
		}
		name := strconv.Itoa(pid)
		if cmdline, err := os.ReadFile("/proc/" + name + "/cmdline"); err == nil && bytes.Contains(cmdline, mark) {
			pids = append(pids, pid)
		} else if environ, err := os.ReadFile("/proc/" + name + "/environ"); err == nil && bytes.Contains(append(append([]byte{0}, environ...), 0), env) {
			pids = append(pids, pid)
		}
	}
	reapAdopted(zombies)
	return pids, true
}

// reapAdopted reaps the exited children of the campaign among pids that
// startChild did not start (orphans adopted as a subreaper); startChild's
// children are reaped by their cmd.Wait.
func reapAdopted(pids []int) {
	if len(pids) == 0 {
		return
	}
	started.Lock()
	defer started.Unlock()
	for _, pid := range pids {
		if !started.pids[pid] {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// nothingLeft is the quick answer of runProcesses without sc.anyone: the
// agent's group is gone and every child of the campaign is one startChild
// started (the agents and proxies of runs), so no process of the run is
// left — a process of the run whose parent ended would be the campaign's
// child (a subreaper's). It reads /proc/self/task/*/children, not all of
// /proc; false when it cannot tell.
func nothingLeft(sc scope) bool {
	if sc.anyone || sc.pgid > 0 && syscall.Kill(-sc.pgid, 0) == nil {
		return false
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	started.Lock()
	defer started.Unlock()
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			return false
		}
		for _, f := range bytes.Fields(b) {
			pid, err := strconv.Atoi(string(f))
			if err != nil || !started.pids[pid] {
				return false
			}
		}
	}
	return true
}
