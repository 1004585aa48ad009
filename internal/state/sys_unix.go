//go:build unix

package state

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in its own process group and makes a cancel kill the
// whole group: `sh -c` and what it starts.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
}
