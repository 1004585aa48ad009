//go:build !unix

package proc

import (
	"errors"
	"os"
	"syscall"
)

// kill approximates kill(2) where there is none (Windows): there are no
// process groups, so pid < 0 means the process -pid alone; sig 0 checks
// that it exists; any other signal terminates it (os.Process.Kill), the
// only signal such a system delivers.
func kill(pid int, sig syscall.Signal) error {
	if pid < 0 {
		pid = -pid
	}
	if pid == 0 {
		return errors.New("kill: no process 0")
	}
	p, err := os.FindProcess(pid)
	if err != nil {
		return err
	}
	defer p.Release()
	if sig == 0 {
		return nil
	}
	return p.Kill()
}
