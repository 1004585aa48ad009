package main

// topUsage is the text of `agent-harness --help`.
const topUsage = `agent-harness — an MCP chaos proxy that measures whether an agent executes a write twice

Usage:
  agent-harness proxy [flags] [--] CMD [ARGS...]       chaos proxy in front of an MCP server
  agent-harness benchmark [flags]                      self-test with two reference agents
  agent-harness campaign [flags] -- AGENT [ARGS...]    run your agent many times, with statistics and a gate
  agent-harness campaign merge DIR... --out DIR        combine the shards of a campaign
  agent-harness sample-server [--state-file F]         a small booking backend (MCP server) for trying campaigns
  agent-harness agent --behaviour B --mcp-config F     the reference agent (careful|naive|flaky:P), an MCP client
  agent-harness plugin inspect PATH                    show what a WASM plugin declares
  agent-harness plugin check FILE.wasm                 run the ABI conformance checks on a WASM plugin
  agent-harness plugin new NAME --hook HOOK            write a plugin skeleton (equivalence|classifier|fault|state)
  agent-harness judge TRACE [flags]                    judge a --trace file again, offline
  agent-harness report FILE [--format F]               render a report file (markdown, junit, json)
  agent-harness                                        demo MCP server on stdio

Run "agent-harness proxy --help" (or campaign, sample-server, agent) for the flags.
`
