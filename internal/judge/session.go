package judge

import (
	"fmt"

	"github.com/cuonztech/agent-harness/internal/report"
)

// obsAcrossProcesses: with --upstream-per-session (behaviour §8.3) an
// operation ran in the upstream processes of two or more sessions, none of
// which executed it twice itself: each process may hold its own state, so
// the repeat is not provably a duplicate.
const obsAcrossProcesses = "REPEAT_ACROSS_UPSTREAM_PROCESSES"

// onSession records an agent session; one with an upstream process of its
// own (EventSession.OwnUpstream) makes its calls' processes part of the
// judging.
func (j *Judge) onSession(ev Event) { j.sess.add(ev) }

// sessionSet is the agent sessions opened so far (EventSession).
type sessionSet struct {
	list []report.SessionInfo
	// own are the sessions with an upstream process of their own (nil
	// when there is none).
	own map[string]bool
}

// procCounts is where an operation's attempts ran when sessions have
// upstream processes of their own: a process is named by its session
// ("" for the shared one).
type procCounts struct {
	procs []string       // distinct processes with an attempt, in order
	exec  map[string]int // executions per process
	// dup: one process executed the operation twice or more, which is a
	// duplicate whatever the others hold.
	dup bool
}

// add records the session of ev.
func (s *sessionSet) add(ev Event) {
	s.list = append(s.list, report.SessionInfo{ID: ev.Session, Transport: ev.Transport, OwnUpstream: ev.OwnUpstream})
	if ev.OwnUpstream {
		if s.own == nil {
			s.own = map[string]bool{}
		}
		s.own[ev.Session] = true
	}
}

// process is the upstream process the session's calls reach.
func (s *sessionSet) process(session string) string {
	if s.own[session] {
		return session
	}
	return ""
}

// noteProcessAttempt records the process of a new attempt.
func (j *Judge) noteProcessAttempt(op *operation, a *attempt) {
	if j.sess.own == nil {
		return
	}
	if op.procs == nil {
		op.procs = &procCounts{exec: map[string]int{}}
	}
	p := j.sess.process(a.session)
	for _, x := range op.procs.procs {
		if x == p {
			return
		}
	}
	op.procs.procs = append(op.procs.procs, p)
}

// noteProcessExecution records an execution of a in its process.
func (j *Judge) noteProcessExecution(op *operation, a *attempt) {
	if op.procs == nil {
		return
	}
	p := j.sess.process(a.session)
	op.procs.exec[p]++
	if op.procs.exec[p] >= 2 {
		op.procs.dup = true
	}
}

// acrossProcesses reports whether op's attempts reached more than one
// upstream process and no process executed it twice.
func (op *operation) acrossProcesses() bool {
	return op.procs != nil && len(op.procs.procs) > 1 && !op.procs.dup
}

// acrossProcessesReason is the verdict reason for op (acrossProcesses).
func (op *operation) acrossProcessesReason() string {
	return fmt.Sprintf("Write operation %s of %q was sent in %d sessions that each have their own upstream process (--upstream-per-session); a repeat in another process is not provably a duplicate (REPEAT_ACROSS_UPSTREAM_PROCESSES).",
		op.id, op.tool, len(op.procs.procs))
}

// acrossProcessesMessage is the observation's message.
func (op *operation) acrossProcessesMessage() string {
	return fmt.Sprintf("The operation reached the upstream processes of %d sessions (--upstream-per-session) and executed %d time(s) in all, at most once in each; the processes may hold separate state, so whether this is a double execution cannot be told.",
		len(op.procs.procs), op.n.executed)
}
