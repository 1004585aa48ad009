//go:build unix

package reportfile

import (
	"errors"
	"syscall"
)

// processExists reports whether a process with this pid exists (in this
// pid namespace): kill(pid, 0) succeeds or is refused for permission.
func processExists(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
