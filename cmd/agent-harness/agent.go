package main

import (
	"context"
	"fmt"
	"os"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/refagent"
)

const agentUsage = `Usage: agent-harness agent --behaviour careful|naive|flaky:P --mcp-config FILE [--server NAME] [--seed N]
       agent-harness agent --model PROVIDER:MODEL --mcp-config FILE [--task TEXT] [--user TEXT]... [flags]

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

With --model it is the built-in LLM agent (docs/agent.md): the server's
tools become the model's tools, the task and each --user message are sent
in order, and every message is recorded in the transcript. PROVIDER is
openai (Chat Completions), anthropic (Messages), ollama (Chat Completions at
localhost:11434, no key) or script (careful, naive, liar, hallucinate: a
deterministic model, no LLM). Exit 0 when the conversation ran (whatever the
tools answered), 1 when a key is missing, the MCP server or the model could
not be used (the transcript is still written), 2 for a usage error, 128+N
after signal N.

Flags:
  --behaviour B      careful, naive or flaky:P (default $AGENT_HARNESS_BEHAVIOUR)
  --mcp-config FILE  the client configuration (default $AGENT_HARNESS_MCP_CONFIG)
  --server NAME      the entry to use (default $AGENT_HARNESS_SERVER_NAME, or the
                     only entry)
  --seed N           seed of the flaky draws, an unsigned 64-bit integer
                     (default $AGENT_HARNESS_SEED, else 1); with --model the
                     provider's seed, sent only when given
With --model:
  --model P:M        the model: openai:M, anthropic:M, ollama:M, script:NAME
  --base-url URL     the provider's server (openai: with /v1, default
                     https://api.openai.com/v1; anthropic: without /v1,
                     default https://api.anthropic.com)
  --api-key-env VAR  the key's environment variable (default OPENAI_API_KEY,
                     ANTHROPIC_API_KEY; none needed for ollama, script or a
                     loopback --base-url unless this flag is given)
  --task TEXT        the first user message (default: book a double room
                     for Ada Lovelace on 2026-11-03)
  --user TEXT        a further user message, sent after the model stops
                     calling tools (repeatable, in order)
  --system-prompt F  the system prompt's file (default the text of
                     $AGENT_HARNESS_SYSTEM_PROMPT; none when both are empty)
  --max-steps N      model calls per turn (default 12)
  --temperature T    sent only when given
  --max-tokens N     sent only when given (anthropic: 4096 when not given)
  --model-timeout D  bound of one model call (default 2m)
  --tool-timeout D   bound of one MCP tool call (default 90s)
  --show-is-error on|off  show a result's isError to the model (default on)
  --probe            end with a question whose one-word answer is the claim
  --probe-text TEXT  the probe's question
  --transcript FILE  the transcript (default $AGENT_HARNESS_RUN_DIR/transcript.json
                     when that is set)
  --help             show this help
  --version          print the version and exit
`

// agentFlags are the agent's flags; each defaults to its environment
// variable.
type agentFlags struct {
	behaviour, config, server, seed                                              string
	model, baseURL, keyEnv, task, systemPrompt, maxSteps, temperature, maxTokens string
	modelTimeout, toolTimeout, showIsError, probeText, transcript                string
	users                                                                        []string
	probe                                                                        bool
}

// agentFlagSet defines the agent's flags on a; the --help is agentUsage,
// written by hand.
func agentFlagSet(a *agentFlags) *flagSet {
	s := newFlagSet("agent")
	s.quoted = true
	s.text(&a.behaviour, "behaviour", "B", "", "")
	s.text(&a.config, "mcp-config", "FILE", "", "")
	s.text(&a.server, "server", "NAME", "", "")
	s.text(&a.seed, "seed", "N", "", "")
	s.text(&a.model, "model", "P:M", "", "")
	s.text(&a.baseURL, "base-url", "URL", "", "")
	s.text(&a.keyEnv, "api-key-env", "VAR", "", "")
	s.text(&a.task, "task", "TEXT", "", "")
	s.list(funcValue(func(v string) error { a.users = append(a.users, v); return nil }), "user", "TEXT", "", "")
	s.text(&a.systemPrompt, "system-prompt", "FILE", "", "")
	s.text(&a.maxSteps, "max-steps", "N", "", "")
	s.text(&a.temperature, "temperature", "T", "", "")
	s.text(&a.maxTokens, "max-tokens", "N", "", "")
	s.text(&a.modelTimeout, "model-timeout", "D", "", "")
	s.text(&a.toolTimeout, "tool-timeout", "D", "", "")
	s.text(&a.showIsError, "show-is-error", "on|off", "", "")
	s.toggle(&a.probe, "probe", "")
	s.text(&a.probeText, "probe-text", "TEXT", "", "")
	s.text(&a.transcript, "transcript", "FILE", "", "")
	s.helpAndVersion("", "")
	return s
}

// runAgent is `agent-harness agent` (behaviour §9.5).
func runAgent(ctx context.Context, args []string, std stdio) error {
	stdout, stderr := std.out, std.err
	a := agentFlags{behaviour: os.Getenv("AGENT_HARNESS_BEHAVIOUR"), config: os.Getenv("AGENT_HARNESS_MCP_CONFIG"),
		server: os.Getenv("AGENT_HARNESS_SERVER_NAME"), seed: os.Getenv("AGENT_HARNESS_SEED")}
	s := agentFlagSet(&a)
	words, err := s.parse(args)
	if err == nil && len(words) > 0 {
		err = usagef("unexpected argument %s", quoteArg(words[0]))
	}
	if err != nil {
		return withUsage(err, func() string { return agentUsage })
	}
	fail := func(err error) error { return usagef("%s", err) }
	if s.given("model") {
		if s.given("behaviour") {
			return fail(fmt.Errorf("flags --behaviour and --model: give one of them"))
		}
		return runModelAgent(ctx, a, s.given, stdout, stderr)
	}
	for _, f := range modelOnlyFlags {
		if s.given(f) {
			return fail(fmt.Errorf("flag --%s needs --model", f))
		}
	}
	behaviour, config, server, seedText := &a.behaviour, &a.config, &a.server, &a.seed
	if *behaviour == "" {
		return fail(fmt.Errorf("flag --behaviour is required, or --model (or set AGENT_HARNESS_BEHAVIOUR)"))
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
