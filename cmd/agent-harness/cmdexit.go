package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// usageError is a command-line error: one line naming the flag, printed on
// stderr as "[agent-harness] CMD: MSG" with exit code 2 (cmdExit).
type usageError struct{ cmd, msg string }

func (e usageError) Error() string {
	if e.cmd == "" {
		return "agent-harness: " + e.msg
	}
	return "agent-harness " + e.cmd + ": " + e.msg
}

func usagef(format string, args ...any) usageError {
	return usageError{msg: escape.Line(fmt.Sprintf(format, args...))}
}

// inCmd names cmd in an error that does not name its command yet: a
// usageError or exitError without one gets cmd, any other error (except a
// request for help or the version) becomes an exitError with code 1 and its
// message.
func inCmd(cmd string, err error) error {
	var ue usageError
	var ee exitError
	var he helpError
	switch {
	case err == nil, errors.Is(err, errHelp), errors.Is(err, errVersion), errors.As(err, &he):
		return err
	case errors.As(err, &ue):
		if ue.cmd == "" {
			ue.cmd = cmd
		}
		return ue
	case errors.As(err, &ee):
		if ee.cmd == "" {
			ee.cmd = cmd
		}
		return ee
	}
	return exitError{cmd: cmd, code: exitFailure, msg: err.Error()}
}

var (
	// errHelp: --help or -h was given; print the usage on stdout, exit 0.
	errHelp = errors.New("agent-harness: help requested")
	// errVersion: --version was given; print the version, exit 0.
	errVersion = errors.New("agent-harness: version requested")
)

// cmdExit is the one place where a command's outcome becomes the process's
// exit code and its last stderr line (RATIONALE.md, "Feedback and the
// command line"). run calls it with the subcommand's name and the error its
// run function returned:
//
//   - nil: exit 0;
//   - helpError (-h, --help): the usage on stdout, exit 0; errVersion: the
//     version on stdout, exit 0;
//   - usageError: "[agent-harness] CMD: MSG" on stderr, exit 2;
//   - exitError: its line when it has a message, exit its code (1 a runtime
//     failure, 3 NOT_TESTED, a verdict or gate code, 128+N after signal N,
//     141 when the agent stopped reading);
//   - any other error: its line, exit 1.
//
// CMD is the error's own command when it names one ("plugin inspect",
// "campaign merge"), else cmd; with neither the line is "[agent-harness]
// MSG".
func cmdExit(cmd string, err error, stdout, stderr io.Writer) int {
	line := func(cmd, msg string) {
		if cmd == "" {
			fmt.Fprintf(stderr, "[agent-harness] %s\n", escape.Line(msg))
			return
		}
		fmt.Fprintf(stderr, "[agent-harness] %s: %s\n", cmd, escape.Line(msg))
	}
	var he helpError
	var ue usageError
	var ee exitError
	switch err = inCmd(cmd, err); {
	case err == nil:
		return exitOK
	case errors.As(err, &he):
		fmt.Fprint(stdout, he.usage)
		return exitOK
	case errors.Is(err, errVersion):
		printVersion(stdout)
		return exitOK
	case errors.As(err, &ue):
		line(ue.cmd, ue.msg)
		return exitUsage
	case errors.As(err, &ee):
		if ee.msg != "" {
			line(ee.cmd, ee.msg)
		}
		return ee.code
	default: // inCmd made every other error an exitError
		line(cmd, err.Error())
		return exitFailure
	}
}

// exitError ends a command with code, after the line "[agent-harness] CMD:
// MSG" when msg is not empty (cmdExit). cmd "" is the command cmdExit
// was given.
type exitError struct {
	cmd  string
	code int
	msg  string
}

func (e exitError) Error() string {
	if e.msg == "" {
		return "exit status " + strconv.Itoa(e.code)
	}
	return e.msg
}

// exitCode is the exitError of a code decided without a message to add (a
// verdict, a gate, a signal, or a failure whose line was already printed);
// nil for 0.
func exitCode(code int) error {
	if code == exitOK {
		return nil
	}
	return exitError{code: code}
}

// helpError asks cmdExit to print usage on stdout and exit 0.
type helpError struct{ usage string }

func (helpError) Error() string { return errHelp.Error() }

// withUsage turns errHelp from a command line's parser into the command's
// usage; other errors pass unchanged.
func withUsage(err error, usage func() string) error {
	if errors.Is(err, errHelp) {
		return helpError{usage: usage()}
	}
	return err
}

// Exit codes of judge and report (behaviour §7): the verdict.
const (
	exitVerdictFail      = 1
	exitVerdictNotTested = 3
)

// runExitCode is the exit code of judge and report for a run whose report
// has status: verdictExitCode's for a finished run (or one that failed to
// start: NOT_TESTED), but never 0 for a run that did not finish
// (interrupted, running, starting): its PASS covers only part of the run,
// and --not-tested-ok does not make it one (behaviour §7.4).
func runExitCode(verdict, status string, notTestedOK bool) int {
	code := verdictExitCode(verdict, notTestedOK)
	if code == exitOK && !finishedStatus(status) {
		return exitVerdictNotTested
	}
	return code
}

// finishedStatus reports whether a report's status is that of a run that
// ended: finished, or failed at the start.
func finishedStatus(status string) bool { return status == "finished" || status == "failed" }

// verdictExitCode maps a verdict to the exit code of judge and report: 0
// PASS, 1 FAIL, 3 NOT_TESTED (0 with --not-tested-ok).
func verdictExitCode(verdict string, notTestedOK bool) int {
	switch verdict {
	case "PASS":
		return exitOK
	case "FAIL":
		return exitVerdictFail
	}
	if notTestedOK {
		return exitOK
	}
	return exitVerdictNotTested
}
