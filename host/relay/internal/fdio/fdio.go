//go:build linux

// Package fdio reads and writes non-blocking pipes and sockets with raw
// system calls, waiting for readiness in the Go netpoller.
//
// Why: a system call made the ordinary way (os.File.Read/Write) tells the
// scheduler it enters a system call, and when every processor was idle —
// which is the relay's state whenever it waits for the agent or the
// upstream, i.e. twice per tools/call — that wakes the runtime's sleeping
// monitor thread (sysmon: a futex wake, then its own sleeps and wake-ups).
// On the relay's per-call path those thread switches cost more than the
// relay's own work. A read or write on a non-blocking descriptor never
// blocks (it returns EAGAIN instead, and then the netpoller waits), so it
// can be made as a raw system call without holding up the scheduler.
package fdio

import (
	"io"
	"os"
	"syscall"
	"unsafe"
)

// File is a non-blocking *os.File read and written with raw system calls.
// Like *os.File, one Read and one Write may run at the same time; Reads (and
// Writes) must not run concurrently with each other.
type File struct {
	f  *os.File
	rc syscall.RawConn

	// The closures passed to the RawConn and their in/out values, made
	// once so that a call allocates nothing.
	rbuf   []byte
	rn     int
	rerr   syscall.Errno
	readFn func(fd uintptr) bool

	wbuf    []byte
	wn      int
	werr    syscall.Errno
	writeFn func(fd uintptr) bool
}

// New returns f for raw I/O, or ok false when f's descriptor is not in
// non-blocking mode (a raw read of a blocking descriptor could stall the
// scheduler) or has no raw access.
func New(f *os.File) (_ *File, ok bool) {
	rc, err := f.SyscallConn()
	if err != nil {
		return nil, false
	}
	nonblock := false
	if err := rc.Control(func(fd uintptr) { nonblock = isNonblock(fd) }); err != nil || !nonblock {
		return nil, false
	}
	x := &File{f: f, rc: rc}
	x.readFn = x.tryRead
	x.writeFn = x.tryWrite
	return x, true
}

// tryRead makes one read(2); false asks the netpoller to wait.
func (x *File) tryRead(fd uintptr) bool {
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(unsafe.SliceData(x.rbuf))), uintptr(len(x.rbuf)))
		switch e {
		case syscall.EINTR:
			continue
		case syscall.EAGAIN:
			return false
		}
		x.rn, x.rerr = int(n), e
		return true
	}
}

// tryWrite writes as much of wbuf as the descriptor takes; false asks the
// netpoller to wait until it takes more.
func (x *File) tryWrite(fd uintptr) bool {
	for x.wn < len(x.wbuf) {
		rest := x.wbuf[x.wn:]
		n, _, e := syscall.RawSyscall(syscall.SYS_WRITE, fd, uintptr(unsafe.Pointer(unsafe.SliceData(rest))), uintptr(len(rest)))
		switch e {
		case 0:
			x.wn += int(n)
		case syscall.EINTR:
		case syscall.EAGAIN:
			return false
		default:
			x.werr = e
			return true
		}
	}
	return true
}

// Read reads up to len(p) bytes; io.EOF at the end of the input.
func (x *File) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	x.rbuf, x.rn, x.rerr = p, 0, 0
	err := x.rc.Read(x.readFn)
	n, e := x.rn, x.rerr
	x.rbuf = nil
	switch {
	case err != nil:
		return 0, wrapClosed(err)
	case e != 0:
		return 0, &os.PathError{Op: "read", Path: x.f.Name(), Err: e}
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of p, waiting in the netpoller while the descriptor is
// full.
func (x *File) Write(p []byte) (int, error) {
	x.wbuf, x.wn, x.werr = p, 0, 0
	err := x.rc.Write(x.writeFn)
	n, e := x.wn, x.werr
	x.wbuf = nil
	switch {
	case err != nil:
		return n, wrapClosed(err)
	case e != 0:
		return n, &os.PathError{Op: "write", Path: x.f.Name(), Err: e}
	}
	return n, nil
}

// TryWrite writes as much of p as the descriptor takes now, without
// waiting: n < len(p) with a nil error means the pipe is full.
func (x *File) TryWrite(p []byte) (int, error) {
	x.wbuf, x.wn, x.werr = p, 0, 0
	err := x.rc.Write(func(fd uintptr) bool {
		x.tryWrite(fd)
		return true // never wait in the netpoller
	})
	n, e := x.wn, x.werr
	x.wbuf = nil
	switch {
	case err != nil:
		return n, wrapClosed(err)
	case e != 0:
		return n, &os.PathError{Op: "write", Path: x.f.Name(), Err: e}
	}
	return n, nil
}

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

// Close closes the file.
func (x *File) Close() error { return x.f.Close() }

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
