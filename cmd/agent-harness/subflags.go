package main

import (
	"errors"
	"fmt"
	"io"
	"strings"
)

// cmdFlag is one flag of a small subcommand (judge, report): the same
// conventions as the proxy's table (proxyflags.go) — a switch has arg "",
// a value starting with -- is never taken as a value, a single-value flag
// may be given once, errors are one line with did-you-mean.
type cmdFlag struct {
	name       string
	arg        string // value placeholder; "" = a switch
	repeatable bool
	usage      string
	set        func(v string) error // nil for --help
}

// cmdLine is the parsed command line of a subcommand.
type cmdLine struct {
	args []string        // positional arguments, in order
	seen map[string]bool // flags given
}

// parseCmdFlags parses args against flags. It returns errHelp for -h or
// --help (which wins), or a usageError naming the first problem.
func parseCmdFlags(flags []cmdFlag, args []string) (cmdLine, error) {
	cl := cmdLine{seen: map[string]bool{}}
	names := make([]string, len(flags))
	for i, f := range flags {
		names[i] = f.name
	}
	lookup := func(name string) *cmdFlag {
		for i := range flags {
			if flags[i].name == name {
				return &flags[i]
			}
		}
		return nil
	}
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
		}
	}
	help, dashes := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case dashes || a == "-" || !strings.HasPrefix(a, "-"):
			cl.args = append(cl.args, a)
		case a == "--":
			dashes = true
		case a == "-h":
			help = true
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			f := lookup(name)
			switch {
			case f == nil:
				fail(usagef("unknown flag %s%s", quoteArg("--"+name), didYouMean(name, names)))
				continue
			case f.set == nil:
				help = true
				continue
			case f.arg == "" && hasValue:
				fail(usagef("flag --%s takes no value", name))
				continue
			case f.arg != "" && !hasValue:
				if i+1 == len(args) || strings.HasPrefix(args[i+1], "--") {
					fail(usagef("flag --%s needs a value", name))
					continue
				}
				i++
				value = args[i]
			}
			if cl.seen[name] && !f.repeatable {
				fail(usagef("flag --%s given twice", name))
				continue
			}
			cl.seen[name] = true
			switch {
			case f.arg != "" && value == "":
				fail(usagef("flag --%s: empty value", name))
			case strings.IndexByte(value, 0) >= 0:
				fail(usagef("flag --%s: the value contains a NUL byte", name))
			default:
				if err := f.set(value); err != nil {
					fail(usagef("flag --%s: %s", name, oneLine(err.Error())))
				}
			}
		default:
			hint := "flags start with --"
			if s := closestName(a, names); s != "" {
				hint += ": did you mean --" + s + "?"
			}
			fail(usagef("unknown flag %s (%s)", quoteArg(a), hint))
		}
	}
	if help {
		return cl, errHelp
	}
	return cl, first
}

// cmdUsage renders a subcommand's flags for its --help.
func cmdUsage(head string, flags []cmdFlag, tail string) string {
	var b strings.Builder
	b.WriteString(head)
	width := 0
	syn := func(f cmdFlag) string {
		s := "--" + f.name
		if f.name == "help" {
			s = "-h, --help"
		}
		if f.arg != "" {
			s += " " + f.arg
		}
		return s
	}
	for _, f := range flags {
		width = max(width, len(syn(f)))
	}
	for _, f := range flags {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, syn(f), f.usage)
	}
	b.WriteString(tail)
	return b.String()
}

// cmdFlagOutcome prints help or a usage error of subcommand cmd; done is
// false when the command should run.
func cmdFlagOutcome(cmd string, err error, usage string, stdout, stderr io.Writer) (code int, done bool) {
	var ue usageError
	switch {
	case err == nil:
		return 0, false
	case errors.Is(err, errHelp):
		fmt.Fprint(stdout, usage)
		return exitOK, true
	case errors.As(err, &ue):
		fmt.Fprintf(stderr, "[agent-harness] %s: %s\n", cmd, ue.msg)
	default:
		fmt.Fprintf(stderr, "[agent-harness] %s: %s\n", cmd, oneLine(err.Error()))
	}
	return exitUsage, true
}

// Exit codes of judge and report (SPEC §13): the verdict.
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
