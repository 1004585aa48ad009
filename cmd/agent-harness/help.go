package main

import (
	"fmt"
	"io"
)

func runHelp(stdout io.Writer) int {
	fmt.Fprint(stdout, `agent-harness — an MCP chaos proxy that measures whether an agent executes a write twice

Usage:
  agent-harness proxy [flags] -- CMD [ARGS...]         chaos proxy in front of an MCP server
  agent-harness benchmark [flags]                      self-test with two reference agents
  agent-harness plugin inspect PATH                    show what a WASM plugin declares
  agent-harness plugin new NAME --hook HOOK            write a plugin skeleton (equivalence|classifier|fault)
  agent-harness judge TRACE [flags]                    judge a --trace file again, offline
  agent-harness report FILE [--format F]               render a report file (markdown, junit, json)
  agent-harness                                        demo MCP server on stdio

Run "agent-harness proxy --help" for the proxy's flags.
`)
	return exitOK
}
