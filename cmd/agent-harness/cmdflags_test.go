package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// subcommandLines are every subcommand's command line up to its flags.
var subcommandLines = [][]string{
	{"proxy"}, {"benchmark"}, {"plugin", "inspect"}, {"plugin", "new"}, {"judge"}, {"report"},
	{"campaign"}, {"campaign", "merge"}, {"agent"}, {"sample-server"},
}

// TestEverySubcommandRejectsAnUnknownFlag: one stderr line of the same
// shape, "[agent-harness] CMD: unknown flag --X (did you mean --Y?)", exit
// 2, nothing on stdout, for a mistyped --help.
func TestEverySubcommandRejectsAnUnknownFlag(t *testing.T) {
	for _, line := range subcommandLines {
		name := strings.Join(line, " ")
		t.Run(name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append(append([]string{}, line...), "--hepl"), strings.NewReader(""), &stdout, &stderr)
			got := stderr.String()
			prefix := "[agent-harness] " + name + ": unknown flag "
			if code != exitUsage || stdout.Len() != 0 || strings.Count(got, "\n") != 1 ||
				!strings.HasPrefix(got, prefix) || !strings.HasSuffix(got, "--hepl (did you mean --help?)\n") && !strings.HasSuffix(got, `"--hepl" (did you mean --help?)`+"\n") {
				t.Errorf("exit %d, stdout %q, stderr %q; want exit 2 and one line %s--hepl (did you mean --help?)", code, stdout.String(), got, prefix)
			}
		})
	}
}

// TestEverySubcommandHelp: --help prints the usage on stdout and exits 0,
// whatever else the command line holds.
func TestEverySubcommandHelp(t *testing.T) {
	for _, line := range subcommandLines {
		name := strings.Join(line, " ")
		for _, help := range [][]string{{"--help"}, {"--bogus", "--help"}} {
			t.Run(name+" "+strings.Join(help, " "), func(t *testing.T) {
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), append(append([]string{}, line...), help...), strings.NewReader(""), &stdout, &stderr)
				if code != exitOK || !strings.Contains(stdout.String(), "Usage: agent-harness "+line[0]) || stderr.Len() != 0 {
					t.Errorf("exit %d, stdout %q, stderr %q; want exit 0 and the usage", code, stdout.String(), stderr.String())
				}
			})
		}
	}
}
