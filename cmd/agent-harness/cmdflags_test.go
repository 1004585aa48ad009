package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"syscall"
	"testing"

	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/relay"
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

// TestCmdExit: the one mapping from a command's outcome to its exit code,
// stdout and last stderr line.
func TestCmdExit(t *testing.T) {
	tests := []struct {
		name           string
		cmd            string
		err            error
		code           int
		stdout, stderr string
	}{
		{"success", "proxy", nil, 0, "", ""},
		{"help", "proxy", helpError{usage: "Usage: x\n"}, 0, "Usage: x\n", ""},
		{"usage error", "proxy", usagef("flag --x: bad"), 2, "", "[agent-harness] proxy: flag --x: bad\n"},
		{"usage error of a named command", "plugin", usageError{cmd: "plugin new", msg: "missing NAME"}, 2, "", "[agent-harness] plugin new: missing NAME\n"},
		{"usage error without a command", "", usagef("unknown command %q", "x"), 2, "", "[agent-harness] unknown command \"x\"\n"},
		{"runtime failure", "sample-server", fmt.Errorf("state file: %w", errors.New("denied\nnow")), 1, "", "[agent-harness] sample-server: state file: denied\\nnow\n"},
		{"failure of a named command", "campaign", inCmd("campaign merge", errors.New("writing the results: full")), 1, "", "[agent-harness] campaign merge: writing the results: full\n"},
		{"NOT_TESTED", "judge", exitCode(exitVerdictNotTested), 3, "", ""},
		{"verdict PASS", "report", exitCode(verdictExitCode("PASS", false)), 0, "", ""},
		{"signal with a line", "campaign", exitError{code: 130, msg: "interrupted"}, 130, "", "[agent-harness] campaign: interrupted\n"},
		{"broken pipe", "proxy", proxyErr(harness.End(relay.ErrAgentGone, false, nil)), 128 + int(syscall.SIGPIPE), "", ""},
		{"SIGTERM", "proxy", proxyErr(harness.End(nil, false, syscall.SIGTERM)), 128 + int(syscall.SIGTERM), "", ""},
		{"start failed", "proxy", proxyErr(harness.End(relay.ErrStartFailed, false, syscall.SIGTERM)), 1, "", ""},
		{"report file failed", "proxy", proxyErr(harness.End(nil, true, nil)), 1, "", ""},
		{"relay error", "proxy", proxyErr(harness.End(errors.New("relay: no upstream command"), false, nil)), 1, "", "[agent-harness] proxy: relay: no upstream command\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := cmdExit(tt.cmd, tt.err, &stdout, &stderr)
			if code != tt.code || stdout.String() != tt.stdout || stderr.String() != tt.stderr {
				t.Errorf("exit %d, stdout %q, stderr %q; want %d, %q, %q", code, stdout.String(), stderr.String(), tt.code, tt.stdout, tt.stderr)
			}
		})
	}
	var stdout bytes.Buffer
	if code := cmdExit("proxy", errVersion, &stdout, io.Discard); code != 0 || !strings.HasPrefix(stdout.String(), "agent-harness ") {
		t.Errorf("version: exit %d, stdout %q", code, stdout.String())
	}
}
