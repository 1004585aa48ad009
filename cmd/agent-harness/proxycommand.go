package main

import (
	"strings"

	"github.com/cuonztech/agent-harness/internal/harness"
)

// commandForm is how the usage and the errors show the `--` form.
const commandForm = "agent-harness proxy [flags] -- CMD [ARGS...]"

// useCommand takes the upstream command and its arguments from the words
// after the flags (where: "after --" or "after the flags", for the
// messages). They replace --upstream-command, --upstream-arg and
// --upstream-args, which must then be absent: one command line never says
// two things.
func useCommand(o *proxyOptions, s *flagSet, command []string, where string) error {
	if len(command) == 0 && s.given("upstream-command") {
		return nil // a trailing -- ends the flags; nothing follows it
	}
	for _, name := range []string{"upstream-command", "upstream-arg", "upstream-args"} {
		if s.given(name) {
			return usagef("flag --%s: not together with a command %s (%s)", name, where, commandForm)
		}
	}
	switch {
	case len(command) == 0:
		return usagef("no command after --: %s", commandForm)
	case command[0] == "":
		return usagef("the command %s is empty: %s", where, commandForm)
	}
	for i, word := range command {
		if strings.IndexByte(word, 0) >= 0 {
			return usagef("word %d %s contains a NUL byte", i+1, where)
		}
	}
	o.UpstreamCommand = command[0]
	o.UpstreamArgs = append([]string(nil), command[1:]...)
	o.commandWhere = where
	return nil
}

// checkCommandWord refuses an upstream command with spaces that is not an
// executable file: almost always a whole command line given as one word
// (`--upstream-command "node server.js"`), which would fail to start with a
// confusing "file not found". The message shows the `--` form.
func checkCommandWord(o *proxyOptions) error {
	c := o.UpstreamCommand
	if !strings.ContainsAny(c, " \t") || harness.IsExecutable(c, o.UpstreamCwd) {
		return nil
	}
	fix := "agent-harness proxy [flags] -- " + strings.Join(strings.Fields(c), " ")
	if o.commandWhere != "" {
		return usagef("the command %s %s is not an executable file; give each argument as its own word: %s", quoteArg(c), o.commandWhere, fix)
	}
	return usagef("flag --upstream-command: %s is not an executable file; to pass arguments write: %s", quoteArg(c), fix)
}
