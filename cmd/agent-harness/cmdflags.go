package main

import (
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/spf13/pflag"
)

// flagSpec is one flag of a subcommand: every subcommand (proxy,
// benchmark, plugin inspect/new, judge, report, campaign, agent,
// sample-server) declares its flags as a []flagSpec and parses them with
// parseFlags, so they share one dialect (RATIONALE.md, "Feedback and the
// command line"):
//
//   - --flag value and --flag=value; a switch (arg "") takes no value;
//   - a value starting with -- is never taken as a value (write
//     --flag=--value);
//   - a single-value flag given twice is an error; repeatable flags add up;
//   - -h and --help win over every other problem, then --version;
//   - an error is one line naming the flag, with did-you-mean.
//
// set gets the options being filled (T) and the value ("true" for a
// switch); it returns the problem without the "flag --name: " prefix.
type flagSpec[T any] struct {
	name       string
	arg        string // value placeholder in the usage; "" = a switch
	repeatable bool
	group      string // heading in the usage (the proxy's groups)
	def        string // default shown in the usage; "" = none shown
	usage      string
	// hidden flags are accepted but neither listed nor suggested (the
	// proxy flags a campaign refuses, with a reason).
	hidden bool
	set    func(o *T, v string) error // nil for --help and --version
}

// none is the options type of flag tables whose setters are closures.
type none struct{}

// flagRules are what differs between the subcommands' command lines.
type flagRules struct {
	// cmd names the subcommand in errors: "proxy", "plugin inspect".
	cmd string
	// positional, when set, refuses a word that is not a flag (the proxy
	// and the campaign take their command after --); nil collects them.
	positional func(word string) error
	// quoted keeps the wording of the subcommands first written on bare
	// pflag (benchmark, plugin, agent, sample-server), which scripts and
	// tests see: an unknown name Go-quoted (unknown flag "--x"), "flag --x
	// has an empty value" (blank too), pflag's "unknown shorthand flag".
	quoted bool
}

// cmdLine is a parsed command line.
type cmdLine struct {
	args []string        // positional words, in order (after -- too)
	seen map[string]bool // flags given
}

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

// parseFlags parses args against flags into o. Checks run in two passes,
// each reporting its first problem: the syntax (unknown flag, missing
// value, a value starting with --, a switch with a value, a single-value
// flag given twice, a refused positional word), then each value in
// command-line order through pflag. It returns errHelp or errVersion when
// asked for (they win over every problem), or a usageError.
func parseFlags[T any](flags []flagSpec[T], o *T, r flagRules, args []string) (cmdLine, error) {
	cl := cmdLine{seen: map[string]bool{}}
	if err := prescan(flags, r, args); err != nil {
		return cl, inCmd(r.cmd, err)
	}
	fs := pflag.NewFlagSet(r.cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	var first error
	for i := range flags {
		f := &flags[i]
		if f.set == nil {
			continue // --help, --version: handled by the prescan
		}
		v := &specValue[T]{f: f, o: o, r: &r, seen: cl.seen, first: &first}
		if f.arg == "" {
			fs.VarPF(v, f.name, "", f.usage).NoOptDefVal = "true"
		} else {
			fs.Var(v, f.name, f.usage)
		}
	}
	if err := fs.Parse(args); err != nil {
		if first != nil {
			return cl, inCmd(r.cmd, first)
		}
		// The prescan leaves pflag nothing else to complain about; keep
		// the one-line contract anyway.
		return cl, usageError{cmd: r.cmd, msg: escape.Line(err.Error())}
	}
	cl.args = fs.Args()
	return cl, nil
}

// prescan checks the syntax before pflag sees the words, since pflag
// would take `--scenario` as the value in `--report-file --scenario F1`.
func prescan[T any](flags []flagSpec[T], r flagRules, args []string) error {
	lookup := func(name string) *flagSpec[T] {
		for i := range flags {
			if flags[i].name == name {
				return &flags[i]
			}
		}
		return nil
	}
	names := flagNames(flags)
	var first error
	fail := func(err error) {
		if first == nil {
			first = err
		}
	}
	count := map[string]int{}
	help, version := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			i = len(args) // the rest are positional words
		case a == "-h":
			help = true
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			f := lookup(name)
			switch {
			case f == nil:
				word := quoteArg("--" + name)
				if r.quoted {
					word = strconv.Quote("--" + name)
				}
				fail(usagef("unknown flag %s%s", word, didYouMean(name, names)))
				continue
			case f.arg == "" && hasValue:
				fail(usagef("flag --%s takes no value", name))
			case f.name == "help" && f.set == nil:
				help = true
			case f.name == "version" && f.set == nil:
				version = true
			case f.arg == "":
				// A switch: the next word is not its value.
			case !hasValue && (i+1 == len(args) || strings.HasPrefix(args[i+1], "--")):
				// Never take a --… token as a value: it is the next flag.
				// When it is none of this command's flags, it was most
				// likely meant as the value: show how to give it.
				hint := ""
				if i+1 < len(args) && args[i+1] != "--" && lookup(strings.SplitN(args[i+1][2:], "=", 2)[0]) == nil {
					hint = " (did you mean " + quoteArg("--"+name+"="+args[i+1]) + "?)"
				}
				fail(usagef("flag --%s needs a value%s", name, hint))
			case !hasValue:
				i++
				value = args[i]
				fallthrough
			default:
				if r.quoted && strings.TrimSpace(value) == "" {
					fail(usagef("flag --%s has an empty value", name))
				}
			}
			count[name]++
			if count[name] == 2 && !f.repeatable && f.set != nil {
				fail(usagef("flag --%s given twice", name))
			}
		case strings.HasPrefix(a, "-") && a != "-":
			if r.quoted {
				c, _ := utf8.DecodeRuneInString(a[1:])
				fail(usagef("unknown shorthand flag: %q in %s", c, quoteArg(a)))
				continue
			}
			hint := "flags start with --"
			if s := closestName(a, names); s != "" {
				hint += ": did you mean --" + s + "?"
			}
			fail(usagef("unknown flag %s (%s)", quoteArg(a), hint))
		case r.positional != nil:
			fail(r.positional(a))
		}
	}
	switch {
	case help:
		return errHelp
	case version:
		return errVersion
	}
	return first
}

// specValue adapts a flagSpec to pflag.Value. The first error is kept in
// *first, already in its final one-line form.
type specValue[T any] struct {
	f     *flagSpec[T]
	o     *T
	r     *flagRules
	seen  map[string]bool
	first *error
}

func (v *specValue[T]) String() string { return v.f.def }
func (v *specValue[T]) Type() string   { return "string" }

func (v *specValue[T]) Set(s string) error {
	var err error
	switch {
	case s == "" && v.r.quoted:
		err = usagef("flag --%s has an empty value", v.f.name)
	case s == "":
		err = usagef("flag --%s: empty value", v.f.name)
	case strings.IndexByte(s, 0) >= 0:
		err = usagef("flag --%s: the value contains a NUL byte", v.f.name)
	default:
		err = v.f.set(v.o, s)
		var ue usageError
		if err != nil && !errors.As(err, &ue) {
			// A complete line (usageError) stays as it is; a problem gets
			// the flag's name in front.
			err = usagef("flag --%s: %s", v.f.name, err.Error())
		}
	}
	v.seen[v.f.name] = true
	if err != nil && *v.first == nil {
		*v.first = err
	}
	return err
}

// flagNames are the listed names of flags, for did-you-mean.
func flagNames[T any](flags []flagSpec[T]) []string {
	var names []string
	for _, f := range flags {
		if !f.hidden {
			names = append(names, f.name)
		}
	}
	return names
}

// flagUsage renders flags for a --help: one line per flag with its
// default, a heading per group when the flags have groups.
func flagUsage[T any](flags []flagSpec[T]) string {
	var b strings.Builder
	width := 0
	for _, f := range flags {
		if !f.hidden {
			width = max(width, len(flagSynopsis(f)))
		}
	}
	group := ""
	for i, f := range flags {
		if f.hidden {
			continue
		}
		if f.group != group {
			group = f.group
			fmt.Fprintf(&b, "%s:\n", group)
		}
		line := f.usage
		if f.def != "" {
			line += " (default " + f.def + ")"
		}
		fmt.Fprintf(&b, "  %-*s  %s\n", width, flagSynopsis(f), line)
		if group != "" && (i+1 == len(flags) || flags[i+1].group != group) {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func flagSynopsis[T any](f flagSpec[T]) string {
	s := "--" + f.name
	if f.name == "help" {
		s = "-h, --help"
	}
	if f.arg != "" {
		s += " " + f.arg
	}
	return s
}

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
