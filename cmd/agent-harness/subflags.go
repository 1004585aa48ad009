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
