// The TypeScript SDK client of the interoperability matrix
// (cmd/agent-harness/interop_matrix_test.go): it starts an MCP server over
// stdio, lists its tools first (the SDK then caches their outputSchemas and
// validates results against them, as agents built on it do), and calls one
// tool one or more times.
//
// Usage: node tsclient.mjs CONFIG_JSON
//   CONFIG_JSON: {"command": "...", "args": [...], "tool": "...",
//                 "arguments": {...}, "calls": 1}
//
// It prints one JSON line on stdout: {"results": [CallToolResult, ...]}
// when every call returned a tool result, or {"error": "message",
// "results": [...]} when the client threw (an exception or a JSON-RPC
// error), and exits 0 in both cases; any other failure exits 1.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const cfg = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({
  command: cfg.command,
  args: cfg.args,
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client({ name: "agent-harness-interop-ts", version: "0.0.1" });
const results = [];
let error;
try {
  await client.connect(transport);
  await client.listTools();
  for (let i = 0; i < (cfg.calls ?? 1); i++) {
    results.push(await client.callTool({ name: cfg.tool, arguments: cfg.arguments }));
  }
} catch (e) {
  error = e instanceof Error ? e.message : String(e);
}
process.stdout.write(JSON.stringify(error === undefined ? { results } : { error, results }) + "\n");
await client.close();
process.exit(0);
