//go:build unix

package relay

import (
	"os"
	"syscall"
)

// nonblockingDup duplicates a pipe or socket f and sets O_NONBLOCK on it
// for the session; release undoes it. nf is nil (and release a no-op) for
// anything else.
func nonblockingDup(f *os.File) (nf *os.File, release func()) {
	noop := func() {}
	sc, err := f.SyscallConn()
	if err != nil {
		return nil, noop
	}
	dup := -1
	var wasNonblock bool
	_ = sc.Control(func(fd uintptr) {
		var st syscall.Stat_t
		if syscall.Fstat(int(fd), &st) != nil {
			return
		}
		if m := st.Mode & syscall.S_IFMT; m != syscall.S_IFIFO && m != syscall.S_IFSOCK {
			return
		}
		d, err := syscall.Dup(int(fd))
		if err != nil {
			return
		}
		syscall.CloseOnExec(d)
		wasNonblock = isNonblock(d)
		if err := syscall.SetNonblock(d, true); err != nil {
			syscall.Close(d)
			return
		}
		dup = d
	})
	if dup < 0 {
		return nil, noop
	}
	nf = os.NewFile(uintptr(dup), f.Name())
	return nf, func() {
		if !wasNonblock {
			_ = syscall.SetNonblock(dup, false)
		}
		nf.Close()
	}
}

// isNonblock reports whether O_NONBLOCK is set on fd.
func isNonblock(fd int) bool {
	flags, _, errno := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), uintptr(syscall.F_GETFL), 0)
	return errno == 0 && flags&syscall.O_NONBLOCK != 0
}
