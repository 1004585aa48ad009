package proc

import "syscall"

// Match says which processes FindProcesses returns: the members of
// process group Group, and the processes whose command line names a path
// under directory Under or whose environment holds the entry Env — except
// process Exclude and its descendants. The zero value of a field matches
// nothing (Exclude 0: nothing is excluded).
type Match struct {
	Group int    // a process group (0: none)
	Under string // a directory: a command-line word containing Under + "/" matches ("": none)
	Env   string // an environment entry KEY=VALUE ("": none)
	// Exclude (0: none) and its descendants never match.
	Exclude int
	// Anyone looks at every process by Under and Env, not only this
	// process's descendants. Without it, a process that left Group is
	// found only while it descends from this one (with AdoptOrphans, an
	// orphan does), which spares reading every process's command line.
	Anyone bool
}

// SignalGroup sends sig to the process group pgid (a process started by
// Start or StartCmd leads its own group, pgid = its pid). Where there are
// no process groups (Windows) it signals the process pgid; there every
// signal but 0 terminates.
func SignalGroup(pgid int, sig syscall.Signal) error { return kill(-pgid, sig) }

// SignalAll sends sig to the process group pgid (0: none) and to each of
// pids — FindProcesses's answer — ignoring errors (a process may have
// ended since it was found).
func SignalAll(pgid int, pids []int, sig syscall.Signal) {
	if pgid > 0 {
		_ = kill(-pgid, sig)
	}
	for _, p := range pids {
		_ = kill(p, sig)
	}
}
