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

	"github.com/cuonztech/agent-harness/host/relay"
)

// Exit codes shared by every subcommand.
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

// run dispatches to a subcommand and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		switch args[0] {
		case "proxy":
			return runProxy(ctx, args[1:], stdin, stdout, stderr)
		case "benchmark":
			return runBenchmark(ctx, args[1:], stdin, stdout, stderr)
		case "plugin":
			return runPlugin(ctx, args[1:], stdin, stdout, stderr)
		case "judge":
			return runJudge(ctx, args[1:], stdout, stderr)
		case "report":
			return runReport(args[1:], stdout, stderr)
		case "campaign":
			return runCampaign(ctx, args[1:], stdout, stderr)
		case "sample-server":
			return runSampleServer(ctx, args[1:], stdin, stdout, stderr)
		case "agent":
			return runAgent(ctx, args[1:], stdout, stderr)
		case "--version", "version":
			return runVersion(stdout)
		case "--help", "-h", "help":
			return runHelp(stdout)
		}
	}
	return runDemo(ctx, args, stdin, stdout, stderr)
}
