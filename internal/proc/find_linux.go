package proc

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// FindProcesses returns the live processes m matches (zombies do not
// count: they run no code), scanning /proc. This process's exited children
// that Start and StartCmd did not start (orphans adopted as a subreaper)
// are reaped on the way. ok is false without a readable /proc.
//
// # Notes
//
// Without m.Anyone it first asks whether anything can match at all: when
// group m.Group is gone and every child of this process is one Start or
// StartCmd started, nothing matched is left — a matching process whose
// parent ended would be this process's child (a subreaper's). That reads
// /proc/self/task/*/children, not all of /proc.
func FindProcesses(m Match) (pids []int, ok bool) {
	if nothingLeft(m) {
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
	mark := []byte(m.Under + string(os.PathSeparator))
	env := []byte("\x00" + m.Env + "\x00")
	for pid, p := range procs {
		switch {
		case p.zombie && p.ppid == self:
			zombies = append(zombies, pid)
			continue
		case p.zombie, m.Exclude > 0 && under(pid, m.Exclude):
			continue
		case m.Group > 0 && p.pgrp == m.Group:
			pids = append(pids, pid)
			continue
		case m.Under == "" && m.Env == "", !m.Anyone && !under(pid, self):
			continue
		}
		name := strconv.Itoa(pid)
		if m.Under != "" {
			if cmdline, err := os.ReadFile("/proc/" + name + "/cmdline"); err == nil && bytes.Contains(cmdline, mark) {
				pids = append(pids, pid)
				continue
			}
		}
		if m.Env != "" {
			if environ, err := os.ReadFile("/proc/" + name + "/environ"); err == nil && bytes.Contains(append(append([]byte{0}, environ...), 0), env) {
				pids = append(pids, pid)
			}
		}
	}
	reapAdopted(zombies)
	return pids, true
}

// reapAdopted reaps the exited children among pids that Start and
// StartCmd did not start (orphans adopted as a subreaper); theirs are
// reaped by their own Wait.
func reapAdopted(pids []int) {
	if len(pids) == 0 {
		return
	}
	children.Lock()
	defer children.Unlock()
	for _, pid := range pids {
		if !children.started[pid] {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
		}
	}
}

// nothingLeft is FindProcesses's quick answer without m.Anyone (see its
// notes); false when it cannot tell.
func nothingLeft(m Match) bool {
	if m.Anyone || m.Group > 0 && syscall.Kill(-m.Group, 0) == nil {
		return false
	}
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return false
	}
	children.Lock()
	defer children.Unlock()
	for _, t := range tasks {
		b, err := os.ReadFile("/proc/self/task/" + t.Name() + "/children")
		if err != nil {
			return false
		}
		for _, f := range bytes.Fields(b) {
			pid, err := strconv.Atoi(string(f))
			if err != nil || !children.started[pid] {
				return false
			}
		}
	}
	return true
}
