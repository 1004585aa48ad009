// Command agent-harness is an MCP chaos proxy that measures whether an LLM
// agent executes a write twice when things go wrong.
//
// Subcommands: proxy, benchmark, plugin, judge, report, campaign,
// sample-server, agent; with no subcommand it serves the demo MCP server on
// stdio.
package main

import (
	"context"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/cuonztech/agent-harness/internal/relay"
)

// Exit codes shared by every subcommand; cmdExit (cmdexit.go) is where a
// command's outcome becomes one of them.
const (
	exitOK      = 0
	exitFailure = 1 // runtime failure: upstream did not start, report file unwritable, …
	exitUsage   = 2 // bad flags or arguments
)

func main() {
	// Writes to a closed pipe must not kill the process with SIGPIPE before
	// the proxy can stop its upstream; they return EPIPE instead.
	signal.Ignore(syscall.SIGPIPE)
	// The binary's only child processes are the upstreams the proxy starts:
	// adopting their orphans lets the proxy end those at exit (Linux; an
	// error elsewhere only means it cannot).
	_ = relay.AdoptOrphans()
	os.Exit(run(context.Background(), os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// run runs the command of args and returns the process exit code: the one
// place it is decided is cmdExit.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd, err := dispatch(ctx, args, stdin, stdout, stderr)
	return cmdExit(cmd, err, stdout, stderr)
}

// stdio are a subcommand's standard streams. In the proxy, demo and
// sample-server modes out is the MCP channel: nothing else goes there.
type stdio struct {
	in       io.Reader
	out, err io.Writer
}

// commands are the subcommands dispatch runs, by their name as the first
// argument, in the order of the did-you-mean list (subcommands).
var commands = []struct {
	name string
	run  func(context.Context, []string, stdio) error
}{
	{"proxy", runProxy},
	{"benchmark", runBenchmark},
	{"plugin", runPlugin},
	{"judge", runJudge},
	{"report", runReport},
	{"campaign", runCampaign},
	{"sample-server", runSampleServer},
	{"agent", runAgent},
}

// subcommands are the words dispatch knows as a first argument, for
// did-you-mean (topLevelHint): the commands, then version and help.
var subcommands = func() []string {
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	return append(names, "version", "help")
}()

// dispatch runs the subcommand args[0] names (the demo server when none
// does) and returns its name, for the error lines, and its outcome.
func dispatch(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) (string, error) {
	std := stdio{in: stdin, out: stdout, err: stderr}
	if len(args) > 0 {
		cmd, rest := args[0], args[1:]
		for _, c := range commands {
			if c.name == cmd {
				return cmd, c.run(ctx, rest, std)
			}
		}
		switch cmd {
		case "--version", "version":
			return "", errVersion
		case "--help", "-h", "help":
			return "", helpError{usage: topUsage}
		}
	}
	return "", runDemo(ctx, args, std)
}
