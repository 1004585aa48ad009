package proc

import (
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// children are the processes Start and StartCmd started and Wait has not
// reaped yet (one registry: a campaign's agents and proxies are never taken
// for orphans of the proxy's upstream, nor the other way round).
// Its lock is held while a child is forked and while adopted processes are
// looked for, so a child being started is never taken for an adopted one.
var children = struct {
	sync.Mutex
	started map[int]bool
}{started: map[int]bool{}}

// adopting is set once AdoptOrphans succeeded.
var adopting atomic.Bool

// AdoptOrphans makes this process a child subreaper (Linux,
// PR_SET_CHILD_SUBREAPER): a descendant of the upstream whose parent exits
// — a daemon that detached with setsid, the child of an `sh -c` wrapper
// that ended — becomes a child of this process instead of init's, and
// Stop ends every such process after the upstream's group. Call it once at
// start, and only in a program whose child processes are all started by
// Start or StartCmd: Stop takes any other child for an adopted one and
// ends it.
// Elsewhere than on Linux it returns an error and changes nothing.
func AdoptOrphans() error {
	if err := setSubreaper(); err != nil {
		return err
	}
	adopting.Store(true)
	return nil
}

// stopAdopted ends the processes re-parented to this one: SIGTERM once,
// up to grace to exit, then SIGKILL, each round looking again, because an
// ended process's own children are re-parented to this one in turn. It
// gives up after grace + max(grace, killWait). Dead ones are reaped.
func stopAdopted(grace time.Duration) {
	if !adopting.Load() {
		return
	}
	start := time.Now()
	termed := map[int]bool{}
	for {
		pids := adopted()
		elapsed := time.Since(start)
		if len(pids) == 0 || elapsed > grace+max(grace, killWait) {
			return
		}
		for _, pid := range pids {
			switch {
			case elapsed > grace:
				_ = kill(pid, syscall.SIGKILL)
			case !termed[pid]:
				termed[pid] = true
				_ = kill(pid, syscall.SIGTERM)
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}
