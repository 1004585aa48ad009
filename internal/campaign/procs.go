package campaign

import "github.com/cuonztech/agent-harness/internal/proc"

// AdoptOrphans makes the campaign a child subreaper (Linux;
// proc.AdoptOrphans): a process of a run whose parent exits (a proxy the
// agent started detached, with setsid) becomes the campaign's child
// instead of init's, so it is found, stopped and reaped with its run. Call
// it once, before any run, in a process whose children are all started by
// the Runner (proc.StartCmd) or proc.Start. Elsewhere than on Linux it
// returns an error and changes nothing.
func AdoptOrphans() error { return proc.AdoptOrphans() }

// runMatch matches the live processes of the run in dir: the members of
// the agent's process group pgid (0: none) and the processes whose command
// line or environment names the run directory — the proxy the agent
// started has its report file there in its arguments, detached or not, and
// an agent and what inherits its environment have AGENT_HARNESS_RUN_DIR.
// exclude (0: none) and its descendants do not count (the proxy a campaign
// started itself). anyone looks at every process, not only the campaign's
// descendants (the processes of a killed campaign's attempt belong to
// init).
func runMatch(pgid int, dir string, exclude int, anyone bool) proc.Match {
	return proc.Match{Group: pgid, Under: dir, Env: "AGENT_HARNESS_RUN_DIR=" + dir, Exclude: exclude, Anyone: anyone}
}
