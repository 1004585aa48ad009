package relay

import "github.com/cuonztech/agent-harness/internal/proc"

// AdoptOrphans makes this process adopt the upstream's orphaned
// descendants (Linux: a child subreaper), so that stopping the upstream
// also ends a process that left its process group (setsid) or whose
// parent exited. Call it once at the start of a program whose only child
// processes are the upstreams Run starts: stopping an upstream ends every
// other child process too. Elsewhere than on Linux it returns an error and
// changes nothing.
func AdoptOrphans() error { return proc.AdoptOrphans() }
