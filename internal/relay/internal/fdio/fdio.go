//go:build linux

// Package fdio writes to non-blocking pipes and sockets without waiting:
// the upstream's write queue (internal/relay) tries each message first and
// queues what the pipe did not take.
package fdio

import (
	"os"
	"syscall"
)

// TryWriter returns a function that writes as much as a non-blocking pipe
// or socket f takes now, without waiting (n < len(p) with a nil error: it
// is full), with ordinary system calls; nil when f is not non-blocking.
func TryWriter(f *os.File) func(p []byte) (int, error) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) { nonblock = isNonblock(fd) }); err != nil || !nonblock {
		return nil
	}
	return func(p []byte) (int, error) {
		n := 0
		var werr error
		err := rc.Write(func(fd uintptr) bool {
			for n < len(p) {
				m, e := syscall.Write(int(fd), p[n:])
				switch {
				case e == syscall.EINTR:
					continue
				case e == syscall.EAGAIN:
					return true
				case e != nil:
					werr = &os.PathError{Op: "write", Path: f.Name(), Err: e}
					return true
				}
				n += m
			}
			return true
		})
		if err != nil {
			return n, wrapClosed(err)
		}
		return n, werr
	}
}

// errFileClosing is the error a RawConn returns for a closed file
// (internal/poll's ErrFileClosing, which os.File methods report as
// os.ErrClosed), taken from a pipe closed for the purpose.
var errFileClosing = func() error {
	r, w, err := os.Pipe()
	if err != nil {
		return nil
	}
	w.Close()
	rc, err := r.SyscallConn()
	r.Close()
	if err != nil {
		return nil
	}
	return rc.Read(func(uintptr) bool { return true })
}()

// wrapClosed reports a closed file as os.ErrClosed, like *os.File does.
func wrapClosed(err error) error {
	if errFileClosing != nil && err == errFileClosing {
		return os.ErrClosed
	}
	return err
}

// isNonblock reports whether O_NONBLOCK is set on fd.
func isNonblock(fd uintptr) bool {
	flags, _, errno := syscall.RawSyscall(syscall.SYS_FCNTL, fd, uintptr(syscall.F_GETFL), 0)
	return errno == 0 && flags&syscall.O_NONBLOCK != 0
}
