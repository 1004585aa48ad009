// The OpenAI Agents JS MCP client (MCPServerStdio of @openai/agents-core,
// which runs the MCP SDK v2 client with versionNegotiation "auto"): it
// connects to an MCP server over stdio — the SDK spawns the command twice,
// a disposable server/discover probe and then the real session — lists the
// tools and calls each configured tool in order. No model is called
// (internal/e2e: the version-probe test, behaviour §5.2).
//
// Usage: node openai-agents-client.mjs CONFIG_JSON
//   CONFIG_JSON: {"command": "...", "args": [...],
//                 "calls": [{"tool": "...", "arguments": {...}}, ...]}
//
// It prints one JSON line on stdout: {"tools": [names], "results":
// [{"result": CallToolResult} | {"error": "message"}, ...]}, and exits 0;
// a failure to connect or list prints {"error": "message"} and exits 0;
// anything else exits 1.
import { MCPServerStdio } from "@openai/agents-core";

const cfg = JSON.parse(process.argv[2]);
const server = new MCPServerStdio({
  name: "agent-harness-interop-openai-agents",
  command: cfg.command,
  args: cfg.args ?? [],
  env: { ...process.env },
});
const out = { results: [] };
try {
  await server.connect();
  out.tools = (await server.listTools()).map((t) => t.name);
  for (const c of cfg.calls ?? []) {
    try {
      // callToolResult is the whole CallToolResult (content, isError,
      // structuredContent) as the SDK v2 client parsed it; callTool, which
      // an agent's function tool uses, keeps only its content.
      const result = await server.callToolResult(c.tool, c.arguments ?? {});
      out.results.push({ result });
    } catch (e) {
      out.results.push({ error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) });
    }
  }
} catch (e) {
  out.error = e instanceof Error ? `${e.name}: ${e.message}` : String(e);
}
process.stdout.write(JSON.stringify(out) + "\n");
await server.close();
process.exit(0);
