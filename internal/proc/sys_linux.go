package proc

import (
	"os"
	"strconv"
	"syscall"
)

// prSetChildSubreaper is PR_SET_CHILD_SUBREAPER (linux/prctl.h); the
// syscall package has no constant for it.
const prSetChildSubreaper = 36

// sysProcAttr starts the child in its own process group, with SIGKILL as
// its parent-death signal: the kernel kills it when the proxy dies, also by
// kill -9 (inherited by none of its own children).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// setSubreaper makes this process a child subreaper.
func setSubreaper() error {
	if _, _, errno := syscall.RawSyscall(syscall.SYS_PRCTL, prSetChildSubreaper, 1, 0); errno != 0 {
		return errno
	}
	return nil
}

// adopted returns the live children of this process that Start did not
// start, and reaps those that are zombies. Without a readable /proc it
// finds none.
func adopted() []int {
	children.Lock()
	defer children.Unlock()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || children.started[pid] {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, ppid, _, ok := statFields(stat)
		if !ok || ppid != self {
			continue
		}
		if state == 'Z' || state == 'X' {
			var ws syscall.WaitStatus
			_, _ = syscall.Wait4(pid, &ws, syscall.WNOHANG, nil)
			continue
		}
		pids = append(pids, pid)
	}
	return pids
}
