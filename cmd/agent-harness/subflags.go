package main

// cmdFlag is one flag of judge and report, whose setters are closures.
type cmdFlag = flagSpec[none]

// parseCmdFlags parses a judge or report command line (parseFlags): the
// positional words are the command's files.
func parseCmdFlags(flags []cmdFlag, args []string) (cmdLine, error) {
	return parseFlags(flags, &none{}, flagRules{}, args)
}

// cmdUsage renders a subcommand's --help: head, the flags, tail.
func cmdUsage(head string, flags []cmdFlag, tail string) string {
	return head + flagUsage(flags) + tail
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
