package e2e

import (
	"errors"
	"syscall"
	"testing"
)

// sysPidfdOpen is pidfd_open(2); the syscall package has no constant for
// it. The number is the same on every Linux architecture.
const sysPidfdOpen = 434

// waitGone waits until pid has exited (a zombie counts as gone), failing
// after maxWait. It waits for the kernel's exit event on a pidfd.
func waitGone(tb testing.TB, pid int) {
	tb.Helper()
	fd, _, errno := syscall.Syscall(sysPidfdOpen, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return
	}
	if errno != 0 {
		tb.Fatalf("pidfd_open(%d): %v", pid, errno)
	}
	defer syscall.Close(int(fd))
	ep, err := syscall.EpollCreate1(syscall.EPOLL_CLOEXEC)
	if err != nil {
		tb.Fatalf("epoll_create1: %v", err)
	}
	defer syscall.Close(ep)
	ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(fd)}
	if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, int(fd), &ev); err != nil {
		tb.Fatalf("epoll_ctl: %v", err)
	}
	events := make([]syscall.EpollEvent, 1)
	for {
		n, err := syscall.EpollWait(ep, events, int(maxWait.Milliseconds()))
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			tb.Fatalf("epoll_wait: %v", err)
		}
		if n == 0 {
			tb.Fatalf("process %d still runs %s after the proxy exited", pid, maxWait)
		}
		return
	}
}
