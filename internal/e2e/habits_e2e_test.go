package e2e

// Command-line habits of the built binary (issue 19 item 9): did-you-mean
// for every subcommand, --version everywhere, a value that starts with --,
// the proxy's exit codes in its --help.

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/report"
)

func TestMistypedSubcommandSuggests(t *testing.T) {
	t.Parallel()
	tests := []struct{ args, want string }{
		{"campain", `[agent-harness] unknown command or flag "campain" (did you mean campaign?); run "agent-harness --help"`},
		{"judg", `[agent-harness] unknown command or flag "judg" (did you mean judge?); run "agent-harness --help"`},
		{"reprot", `[agent-harness] unknown command or flag "reprot" (did you mean report?); run "agent-harness --help"`},
		{"agnet", `[agent-harness] unknown command or flag "agnet" (did you mean agent?); run "agent-harness --help"`},
		{"sample_server", `[agent-harness] unknown command or flag "sample_server" (did you mean sample-server?); run "agent-harness --help"`},
		{"sampleserver", `[agent-harness] unknown command or flag "sampleserver" (did you mean sample-server?); run "agent-harness --help"`},
		{"benchmrk", `[agent-harness] unknown command or flag "benchmrk" (did you mean benchmark?); run "agent-harness --help"`},
		{"prxy", `[agent-harness] unknown command or flag "prxy" (did you mean proxy?); run "agent-harness --help"`},
		{"plugin inspct", `[agent-harness] plugin: unknown subcommand "inspct" (want inspect, check or new; did you mean inspect?)`},
		{"plugin nwe", `[agent-harness] plugin: unknown subcommand "nwe" (want inspect, check or new; did you mean new?)`},
		{"xyzzy", `[agent-harness] unknown command or flag "xyzzy"; run "agent-harness --help"`},
	}
	for _, tt := range tests {
		t.Run(tt.args, func(t *testing.T) {
			stdout, stderr, code := runBuilt(t, t.TempDir(), nil, strings.Fields(tt.args)...)
			if code != exitUsage || stderr != tt.want+"\n" || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

func TestVersionOnEverySubcommand(t *testing.T) {
	t.Parallel()
	for _, args := range []string{
		"--version", "version", "proxy --version", "benchmark --version", "plugin --version",
		"plugin inspect --version", "plugin new --version", "plugin new x --hook fault --version",
		"judge --version", "judge trace.jsonl --version", "report --version", "campaign --version",
		"campaign merge --version", "sample-server --version", "agent --version",
	} {
		t.Run(args, func(t *testing.T) {
			dir := t.TempDir()
			stdout, stderr, code := runBuilt(t, dir, nil, strings.Fields(args)...)
			want := "agent-harness " + report.HarnessVersion + " ("
			if code != exitOK || !strings.HasPrefix(stdout, want) || strings.Count(stdout, "\n") != 1 || stderr != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 0 and one line starting %q", code, stdout, stderr, want)
			}
		})
	}
}

func TestFlagValueStartingWithDashes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"an upstream's flag as the value", []string{"proxy", "--upstream-command", "node", "--upstream-arg", "--state-file", "--upstream-arg", "s.jsonl"},
			`[agent-harness] proxy: flag --upstream-arg needs a value (did you mean --upstream-arg=--state-file?)`},
		{"with its own value", []string{"proxy", "--upstream-command", "node", "--upstream-arg", "--port=3000"},
			`[agent-harness] proxy: flag --upstream-arg needs a value (did you mean --upstream-arg=--port=3000?)`},
		{"the next word is one of the command's flags", []string{"proxy", "--report-file", "--scenario", "F1", "--upstream-command", "node"},
			`[agent-harness] proxy: flag --report-file needs a value`},
		{"the next word is --", []string{"proxy", "--upstream-arg", "--", "node"},
			`[agent-harness] proxy: flag --upstream-arg needs a value`},
		{"another command", []string{"judge", "t.jsonl", "--plugin", "--x"},
			`[agent-harness] judge: flag --plugin needs a value (did you mean --plugin=--x?)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBuilt(t, t.TempDir(), nil, tt.args...)
			if code != exitUsage || stderr != tt.want+"\n" || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr %q; want 2 and %q", code, stdout, stderr, tt.want)
			}
		})
	}
}

func TestProxyHelpListsExitCodes(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "proxy", "--help")
	if code != exitOK || stderr != "" {
		t.Fatalf("exit %d, stderr %q; want 0 and nothing", code, stderr)
	}
	for _, want := range []string{
		"  0      the client closed the session",
		"  128+N  stopped by signal N (SIGHUP 129, SIGINT 130, SIGTERM 143)",
		"  141    the client stopped reading (broken pipe)",
		"  1      the setup failed",
		"  2      usage error",
	} {
		if !strings.Contains(stdout, "\n"+want) {
			t.Errorf("proxy --help has no line %q:\n%s", want, stdout)
		}
	}
}
