package main

import (
	"errors"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/spf13/pflag"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// flagSet is a subcommand's command line: a pflag.FlagSet of typed
// variables plus the house rules pflag does not have, the same for every
// subcommand (RATIONALE.md, "Feedback and the command line"):
//
//   - --flag value and --flag=value; a switch takes no value;
//   - a value starting with -- is never taken as a value (write
//     --flag=--value), and when that word is none of the command's flags the
//     error shows how to give it;
//   - a one-value flag given twice is an error; list flags add up;
//   - an empty value, or one with a NUL byte, is refused;
//   - -h and --help win over every other problem, then --version;
//   - an error is one line naming the flag, with did-you-mean.
//
// parse checks in two passes, each reporting its first problem: the syntax
// (checkSyntax, before pflag sees the words, since pflag would take
// `--scenario` as the value in `--report-file --scenario F1`), then each
// value in command-line order (pflag calling the values' Set).
type flagSet struct {
	fs   *pflag.FlagSet
	cmd  string // names the subcommand in errors: "proxy", "plugin inspect"
	meta map[string]flagMeta
	// quoted keeps the wording of the subcommands first written on bare
	// pflag (benchmark, plugin, agent, sample-server), which scripts and
	// tests see: an unknown name Go-quoted (unknown flag "--x"), "flag --x
	// has an empty value" (blank too), pflag's "unknown shorthand flag".
	quoted bool
	// positional, when set, refuses a word that is not a flag (the
	// campaign takes its command after --); nil collects them.
	positional func(word string) error
	// group is the --help heading of the flags defined next.
	group string
	first error // the first value error, in its final one-line form
}

// flagMeta is what a flag's --help line and the house rules need beyond
// pflag's Flag (whose DefValue is the default the --help shows).
type flagMeta struct {
	arg   string // value placeholder in --help; "" = a switch
	group string
	list  bool // may be given several times (the values add up)
}

func newFlagSet(cmd string) *flagSet {
	fs := pflag.NewFlagSet(cmd, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SortFlags = false
	return &flagSet{fs: fs, cmd: cmd, meta: map[string]flagMeta{}}
}

// text defines a one-value string flag; arg names its value in --help, def
// is the default --help shows ("" = none shown).
func (s *flagSet) text(p *string, name, arg, def, usage string) {
	s.fs.StringVar(p, name, *p, usage)
	s.adopt(name, flagMeta{arg: arg}, def)
}

// toggle defines a switch: given, *p is true.
func (s *flagSet) toggle(p *bool, name, usage string) {
	s.fs.BoolVar(p, name, *p, usage)
	s.adopt(name, flagMeta{}, "")
}

// value defines a one-value flag of a type of its own.
func (s *flagSet) value(v pflag.Value, name, arg, def, usage string) {
	s.fs.Var(v, name, usage)
	s.adopt(name, flagMeta{arg: arg}, def)
}

// list defines a flag that may be given several times; v adds each value.
func (s *flagSet) list(v pflag.Value, name, arg, def, usage string) {
	s.fs.Var(v, name, usage)
	s.adopt(name, flagMeta{arg: arg, list: true}, def)
}

// helpAndVersion defines --help (-h) and --version with these usages.
func (s *flagSet) helpAndVersion(help, version string) {
	s.toggle(new(bool), "help", help)
	s.toggle(new(bool), "version", version)
}

func (s *flagSet) adopt(name string, m flagMeta, def string) {
	f := s.fs.Lookup(name)
	f.Value = checkedValue{Value: f.Value, name: name, s: s}
	f.DefValue = def
	if m.arg == "" {
		f.NoOptDefVal = "true"
	}
	m.group = s.group
	s.meta[name] = m
}

// given reports whether flag name was on the command line.
func (s *flagSet) given(name string) bool { return s.fs.Changed(name) }

// givenIn is the first flag of group, in --help order, that was on the
// command line, leaving out except; "" when none was.
func (s *flagSet) givenIn(group string, except ...string) string {
	name := ""
	s.fs.VisitAll(func(f *pflag.Flag) {
		if name == "" && f.Changed && s.meta[f.Name].group == group && !slices.Contains(except, f.Name) {
			name = f.Name
		}
	})
	return name
}

// parse parses args and returns the positional words (those after -- too).
// It returns errHelp or errVersion when asked for (they win over every
// problem), or a usageError.
func (s *flagSet) parse(args []string) ([]string, error) {
	if err := s.checkSyntax(args); err != nil {
		return nil, inCmd(s.cmd, err)
	}
	if err := s.fs.Parse(args); err != nil {
		if s.first != nil {
			return nil, inCmd(s.cmd, s.first)
		}
		// checkSyntax leaves pflag nothing else to complain about; keep
		// the one-line contract anyway.
		return nil, usageError{cmd: s.cmd, msg: escape.Line(err.Error())}
	}
	return s.fs.Args(), nil
}

// checkSyntax is parse's first pass: unknown flags, missing values, a value
// starting with --, a switch with a value, a one-value flag given twice, a
// refused positional word; and the requests for help and the version.
func (s *flagSet) checkSyntax(args []string) error {
	var first error
	help, version := false, false
	count := map[string]int{}
	for i := 0; i < len(args); i++ {
		var err error
		switch a := args[i]; {
		case a == "--":
			i = len(args) // the rest are positional words
		case a == "-h":
			help = true
		case strings.HasPrefix(a, "--"):
			name, value, hasValue := strings.Cut(a[2:], "=")
			var takesNext bool
			takesNext, err = s.checkLong(name, value, hasValue, args[i+1:])
			if takesNext {
				i++
			}
			if _, known := s.meta[name]; known {
				count[name]++
				help = help || name == "help" && !hasValue
				version = version || name == "version" && !hasValue
				if count[name] == 2 && !s.meta[name].list && name != "help" && name != "version" {
					err = firstOf(err, usagef("flag --%s given twice", name))
				}
			}
		case strings.HasPrefix(a, "-") && a != "-":
			err = s.shortFlag(a)
		case s.positional != nil:
			err = s.positional(a)
		}
		first = firstOf(first, err)
	}
	switch {
	case help:
		return errHelp
	case version:
		return errVersion
	}
	return first
}

// checkLong checks --name[=value] followed by rest, and reports whether its
// value is the next word.
func (s *flagSet) checkLong(name, value string, hasValue bool, rest []string) (takesNext bool, err error) {
	m, known := s.meta[name]
	switch {
	case !known:
		word := quoteArg("--" + name)
		if s.quoted {
			word = strconv.Quote("--" + name)
		}
		return false, usagef("unknown flag %s%s", word, didYouMean(name, s.names()))
	case m.arg == "" && hasValue:
		return false, usagef("flag --%s takes no value", name)
	case m.arg == "":
		return false, nil
	case !hasValue && (len(rest) == 0 || strings.HasPrefix(rest[0], "--")):
		// Never take a --… word as a value: it is the next flag. When it
		// is none of this command's flags, it was most likely meant as the
		// value: show how to give it.
		hint := ""
		if len(rest) > 0 && rest[0] != "--" && !s.isFlag(rest[0]) {
			hint = " (did you mean " + quoteArg("--"+name+"="+rest[0]) + "?)"
		}
		return false, usagef("flag --%s needs a value%s", name, hint)
	case !hasValue:
		takesNext, value = true, rest[0]
	}
	if s.quoted && strings.TrimSpace(value) == "" {
		return takesNext, usagef("flag --%s has an empty value", name)
	}
	return takesNext, nil
}

// shortFlag is the error for -x: flags start with --.
func (s *flagSet) shortFlag(a string) error {
	if s.quoted {
		c, _ := utf8.DecodeRuneInString(a[1:])
		return usagef("unknown shorthand flag: %q in %s", c, quoteArg(a))
	}
	hint := "flags start with --"
	if n := closestName(a, s.names()); n != "" {
		hint += ": did you mean --" + n + "?"
	}
	return usagef("unknown flag %s (%s)", quoteArg(a), hint)
}

// isFlag reports whether word is --name or --name=… of one of the flags.
func (s *flagSet) isFlag(word string) bool {
	name, _, _ := strings.Cut(strings.TrimPrefix(word, "--"), "=")
	_, known := s.meta[name]
	return strings.HasPrefix(word, "--") && known
}

// names are the listed flags' names, for did-you-mean.
func (s *flagSet) names() []string {
	var names []string
	s.fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	return names
}

// splitCommand splits a command line whose first word that is neither a
// flag nor a flag's value starts a command (the proxy's upstream, behaviour
// §2.7): the flags, then the command with its arguments, and where it
// started ("after --" or "after the flags"; "" when there is none).
// Everything from the command on is the command's, flags and `--`
// included. No flag takes `--` or another --word as its value, and a
// switch takes none, so the split agrees with what parse reads as a value;
// a word after an unknown flag is taken as the command, which is harmless
// since the unknown flag is refused first.
func (s *flagSet) splitCommand(args []string) (flags, command []string, where string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[:i], args[i+1:], "after --"
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			if m, ok := s.meta[name]; ok && m.arg != "" && !hasValue &&
				i+1 < len(args) && !strings.HasPrefix(args[i+1], "--") {
				i++ // the flag's value
			}
		case strings.HasPrefix(a, "-") && a != "-":
			// -h, or a mistyped flag the parser refuses: not a command.
		default:
			return args[:i], args[i:], "after the flags"
		}
	}
	return args, nil, ""
}

// checkedValue is a flag's value with the checks every value gets: not
// empty, no NUL byte, and an error naming the flag. The first error is kept
// in the flagSet, already in its final one-line form.
type checkedValue struct {
	pflag.Value
	name string
	s    *flagSet
}

func (v checkedValue) Set(x string) error {
	var err error
	switch {
	case x == "" && v.s.quoted:
		err = usagef("flag --%s has an empty value", v.name)
	case x == "":
		err = usagef("flag --%s: empty value", v.name)
	case strings.IndexByte(x, 0) >= 0:
		err = usagef("flag --%s: the value contains a NUL byte", v.name)
	default:
		err = v.Value.Set(x)
		var whole usageError
		if err != nil && !errors.As(err, &whole) {
			// A complete line (usageError) stays as it is; a problem gets
			// the flag's name in front.
			err = usagef("flag --%s: %s", v.name, err.Error())
		}
	}
	v.s.first = firstOf(v.s.first, err)
	return err
}

// firstOf is a when it is an error, else b.
func firstOf(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// oneWord checks that a command got exactly one positional word: none is
// the usage error missing, a second "unexpected argument W (one WHAT)".
func oneWord(words []string, missing, what string) error {
	switch len(words) {
	case 0:
		return usagef("%s", missing)
	case 1:
		return nil
	}
	return usagef("unexpected argument %s (one %s)", quoteArg(words[1]), what)
}
