//go:build !unix

package proc

import (
	"errors"
	"syscall"
)

// sysProcAttr is the default: without process groups or a parent-death
// signal (Windows), a child of an upstream or an upstream that ignores
// stdin EOF can outlive the proxy.
func sysProcAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{} }

// setSubreaper is not available: orphans are nobody's.
func setSubreaper() error {
	return errors.New("adopting orphaned processes needs Linux (PR_SET_CHILD_SUBREAPER)")
}

// adopted finds nothing: there is no subreaper.
func adopted() []int { return nil }
