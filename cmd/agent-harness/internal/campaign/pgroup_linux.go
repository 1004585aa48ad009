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

// runProcesses returns the live processes of a run (zombies do not count:
// they run no code): the members of the agent's process group pgid (0:
// none) and every process whose command line or environment names the run
// directory dir — the proxy the agent started has its report file there in
// its arguments, detached or not, and an agent and what inherits its
// environment have AGENT_HARNESS_RUN_DIR. Adopted orphans that are
// zombies are reaped on the way. Process exclude (0: none) and its
// descendants do not count (the proxy a campaign started itself). ok is
// false without a readable /proc.
func runProcesses(pgid int, dir string, exclude int) (pids []int, ok bool) {
	reapAdopted()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil, false
	}
	self := os.Getpid()
	parent := map[int]int{}
	var cands []int
	mark := []byte(dir + string(os.PathSeparator))
	env := []byte("\x00AGENT_HARNESS_RUN_DIR=" + dir + "\x00")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, ppid, pgrp, ok := statFields(stat)
		if !ok {
			continue
		}
		parent[pid] = ppid
		if state == 'Z' || state == 'X' {
			continue
		}
		if pgid > 0 && pgrp == pgid {
			cands = append(cands, pid)
			continue
		}
		if dir == "" {
			continue
		}
		if cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && bytes.Contains(cmdline, mark) {
			cands = append(cands, pid)
			continue
		}
		if environ, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytes.Contains(append(append([]byte{0}, environ...), 0), env) {
			cands = append(cands, pid)
		}
	}
	for _, pid := range cands {
		if !descends(pid, exclude, parent) {
			pids = append(pids, pid)
		}
	}
	return pids, true
}

// descends reports whether pid is root or one of its descendants.
func descends(pid, root int, parent map[int]int) bool {
	if root <= 0 {
		return false
	}
	for i := 0; i < 64 && pid > 1; i++ {
		if pid == root {
			return true
		}
		pid = parent[pid]
	}
	return false
}

// reapAdopted reaps the campaign's children that startChild did not start
// (orphans adopted as a subreaper) and have exited.
func reapAdopted() {
	started.Lock()
	defer started.Unlock()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || started.pids[pid] {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		if state, ppid, _, ok := statFields(stat); ok && ppid == self && (state == 'Z' || state == 'X') {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}
