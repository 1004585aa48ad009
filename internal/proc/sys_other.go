//go:build unix && !linux

package proc

import (
	"errors"
	"syscall"
)

// sysProcAttr starts the child in its own process group. Without Linux's
// parent-death signal, an upstream that ignores stdin EOF outlives a proxy
// killed by kill -9.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}

// setSubreaper is not available: orphans go to init.
func setSubreaper() error {
	return errors.New("adopting orphaned processes needs Linux (PR_SET_CHILD_SUBREAPER)")
}

// adopted finds nothing: there is no subreaper.
func adopted() []int { return nil }
