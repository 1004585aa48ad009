package e2e

// End-to-end tests of the guards against orphaned upstream processes
// (Linux: parent-death signal and child subreaper; docs/limits.md).

import (
	"path/filepath"
	"syscall"
	"testing"
)

// TestProxyKilledUpstreamGone: after kill -9 of the proxy, an upstream
// that ignores stdin EOF and SIGTERM is gone all the same: the kernel sends
// it SIGKILL when its parent dies.
func TestProxyKilledUpstreamGone(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	pidFile := filepath.Join(t.TempDir(), "upstream.pid")
	p := startProxy(t, nil, upstreamFlags(t, "-ignore-stdin-eof", "-ignore-sigterm", "-pidfile", pidFile)...)
	p.initialize()
	pid := readPid(t, pidFile)
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	p.wait()
	if got := exitStatus(p.cmd.ProcessState); got != 128+9 {
		t.Errorf("proxy exit %d, want 137", got)
	}
	waitGone(t, pid)
}

// TestProxyStopsDetachedGrandchild: a grandchild that left the upstream's
// process group and session with setsid — out of reach of the group's
// signals — is ended when the proxy stops: it was re-parented to the proxy.
func TestProxyStopsDetachedGrandchild(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	tests := []struct {
		name     string
		end      func(p *peer)
		wantCode int
	}{
		{"agent EOF", func(p *peer) { p.stdin.Close() }, 0},
		{"SIGTERM", func(p *peer) { _ = p.cmd.Process.Signal(syscall.SIGTERM) }, 128 + 15},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			pidFile := filepath.Join(t.TempDir(), "detached.pid")
			p := startProxy(t, nil, upstreamFlags(t, "-setsid-grandchild-pidfile", pidFile)...)
			p.initialize()
			pid := readPid(t, pidFile)
			t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
			tt.end(p)
			p.wait()
			if got := exitStatus(p.cmd.ProcessState); got != tt.wantCode {
				t.Errorf("proxy exit %d, want %d; stderr:\n%s", got, tt.wantCode, p.stderr.String())
			}
			// The proxy ended it before exiting; waitGone only collects
			// the kernel's exit event.
			if !processGone(pid) {
				t.Errorf("detached grandchild %d still runs after the proxy exited", pid)
			}
			waitGone(t, pid)
		})
	}
}
