//go:build unix

package proc

import "syscall"

// kill is kill(2): pid < 0 signals the process group -pid, sig 0 only
// checks that the process (or group) exists.
func kill(pid int, sig syscall.Signal) error { return syscall.Kill(pid, sig) }
