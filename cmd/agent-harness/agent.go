package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/refagent"
)

const agentUsage = `Usage: agent-harness agent --behaviour careful|naive|flaky:P --mcp-config FILE [--server NAME] [--seed N]

The reference agent (no LLM): an MCP client that starts or connects to the
server named in FILE (the common client format {"mcpServers": {NAME: ...}},
a stdio "command" or an HTTP "url"), books one booking on the sample server
(agent-harness sample-server) and handles a failed write as its behaviour says:
  careful   checks with find_bookings before any re-send; re-sends (same key)
            only when the booking is missing; waits out a retry_after first
  naive     re-sends at once with a new key (at most 3 attempts)
  flaky:P   naive with probability P per failure, careful otherwise
Its stdout says what it did. Exit 0 when the session worked (whatever the
tools answered), 1 when it could not connect, 2 for a usage error.

Flags:
  --behaviour B      careful, naive or flaky:P (default $AGENT_HARNESS_BEHAVIOUR)
  --mcp-config FILE  the client configuration (default $AGENT_HARNESS_MCP_CONFIG)
  --server NAME      the entry to use (default $AGENT_HARNESS_SERVER_NAME, or the
                     only entry)
  --seed N           seed of the flaky draws, an unsigned 64-bit integer
                     (default $AGENT_HARNESS_SEED, else 1)
  --help             show this help
  --version          print the version and exit
`

// agentFlags are the agent's flags; each defaults to its environment
// variable.
type agentFlags struct{ behaviour, config, server, seed string }

var agentTable = []flagSpec[agentFlags]{
	{name: "behaviour", arg: "B", set: func(a *agentFlags, v string) error { a.behaviour = v; return nil }},
	{name: "mcp-config", arg: "FILE", set: func(a *agentFlags, v string) error { a.config = v; return nil }},
	{name: "server", arg: "NAME", set: func(a *agentFlags, v string) error { a.server = v; return nil }},
	{name: "seed", arg: "N", set: func(a *agentFlags, v string) error { a.seed = v; return nil }},
	{name: "help"},
	{name: "version"},
}

// runAgent is `agent-harness agent` (behaviour §9.5).
func runAgent(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	a := agentFlags{behaviour: os.Getenv("AGENT_HARNESS_BEHAVIOUR"), config: os.Getenv("AGENT_HARNESS_MCP_CONFIG"),
		server: os.Getenv("AGENT_HARNESS_SERVER_NAME"), seed: os.Getenv("AGENT_HARNESS_SEED")}
	cl, err := parseFlags(agentTable, &a, flagRules{cmd: "agent", quoted: true}, args)
	if err == nil && len(cl.args) > 0 {
		err = usagef("unexpected argument %s", quoteArg(cl.args[0]))
	}
	if err != nil {
		return withUsage(err, func() string { return agentUsage })
	}
	fail := func(err error) error { return usagef("%s", err) }
	behaviour, config, server, seedText := &a.behaviour, &a.config, &a.server, &a.seed
	if *behaviour == "" {
		return fail(fmt.Errorf("flag --behaviour is required (or set AGENT_HARNESS_BEHAVIOUR)"))
	}
	b, err := refagent.ParseBehaviour(*behaviour)
	if err != nil {
		return fail(fmt.Errorf("flag --behaviour: %w", err))
	}
	seed := uint64(1)
	if *seedText != "" {
		if seed, err = strconv.ParseUint(*seedText, 10, 64); err != nil {
			return fail(fmt.Errorf("flag --seed: %q is not an unsigned 64-bit integer", *seedText))
		}
	}
	if *config == "" {
		return fail(fmt.Errorf("flag --mcp-config is required (or set AGENT_HARNESS_MCP_CONFIG)"))
	}
	data, err := os.ReadFile(*config)
	if err != nil {
		return fail(fmt.Errorf("flag --mcp-config: %w", err))
	}
	entry, err := refagent.ParseConfig(data, *server)
	if err != nil {
		return fail(fmt.Errorf("flag --mcp-config: %s: %w", *config, err))
	}
	ctx, stopSignals, _ := withStopSignals(ctx)
	defer stopSignals()
	err = refagent.Run(ctx, refagent.Options{Entry: entry, Behaviour: b, Seed: seed, Stdout: stdout, Stderr: stderr})
	return err
}
