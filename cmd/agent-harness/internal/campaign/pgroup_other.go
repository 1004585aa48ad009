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

// runProcesses without /proc: the agent's group counts while kill(-pgid, 0)
// succeeds; processes that left it cannot be found.
func runProcesses(pgid int, dir string, exclude int) ([]int, bool) {
	if pgid > 0 && syscall.Kill(-pgid, 0) == nil {
		return []int{-pgid}, false
	}
	return nil, false
}

func reapAdopted() {}
