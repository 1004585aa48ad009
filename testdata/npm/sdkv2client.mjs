// The MCP SDK v2 client (@modelcontextprotocol/client) of the 2026-07-28
// interop test (internal/e2e): it connects over stdio with version
// negotiation "auto" — a disposable server/discover probe on a sibling
// process, then the real session, stateless (SEP-2575) when the server
// offers 2026-07-28 — lists the tools (the client then validates results
// against their outputSchemas) and calls each configured tool in order.
//
// Usage: node sdkv2client.mjs CONFIG_JSON
//   CONFIG_JSON: {"command": "...", "args": [...],
//                 "calls": [{"tool": "...", "arguments": {...}}, ...]}
//
// It prints one JSON line on stdout: {"version": negotiated revision,
// "tools": [names], "results": [{"result": CallToolResult} |
// {"error": "Name: message"}, ...]}, with "error" at the top when connect
// or listing failed, and exits 0; any other failure exits 1.
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const cfg = JSON.parse(process.argv[2]);
const transport = new StdioClientTransport({
  command: cfg.command,
  args: cfg.args ?? [],
  env: { ...process.env },
  stderr: "inherit",
});
const client = new Client(
  { name: "agent-harness-interop-sdk-v2", version: "0.0.1" },
  { versionNegotiation: { mode: "auto" } },
);
const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
const out = { results: [] };
try {
  await client.connect(transport);
  out.version = client.getNegotiatedProtocolVersion();
  out.tools = (await client.listTools()).tools.map((t) => t.name);
  for (const c of cfg.calls ?? []) {
    try {
      out.results.push({ result: await client.callTool({ name: c.tool, arguments: c.arguments ?? {} }) });
    } catch (e) {
      out.results.push({ error: describe(e) });
    }
  }
} catch (e) {
  out.error = describe(e);
}
process.stdout.write(JSON.stringify(out) + "\n");
await client.close();
process.exit(0);
