//go:build !linux

package campaign

import (
	"errors"
	"syscall"
)

// childAttr starts the child in its own process group. Without Linux's
// parent-death signal a child outlives a campaign killed by kill -9.
func childAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func setSubreaper() error {
	return errors.New("adopting orphaned processes needs Linux (PR_SET_CHILD_SUBREAPER)")
}

// scope says where runProcesses looks (see pgroup_linux.go).
type scope struct {
	pgid    int
	dir     string
	exclude int
	anyone  bool
}

// runProcesses without /proc: the agent's group counts while kill(-pgid, 0)
// succeeds (as -pgid, which signalAll signals as a group); processes that
// left it cannot be found.
func runProcesses(sc scope) ([]int, bool) {
	if sc.pgid > 0 && syscall.Kill(-sc.pgid, 0) == nil {
		return []int{-sc.pgid}, false
	}
	return nil, false
}
