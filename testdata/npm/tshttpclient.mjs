// The TypeScript SDK's Streamable HTTP client, for the proxy's HTTP tests
// (cmd/agent-harness/proxy_http_e2e_test.go): it connects to URL, lists
// the tools, calls each call of CONFIG in order and prints one JSON line
// on stdout: {"results": [CallToolResult, ...], "progress": N,
// "elicitations": N} or, when the client threw, {"error": "message", ...};
// it exits 0 in both cases, any other failure exits 1.
//
// Usage: node tshttpclient.mjs URL CONFIG_JSON
//   CONFIG_JSON: {"calls": [{"name": "...", "arguments": {...}, "progress": true}]}
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";

const url = new URL(process.argv[2]);
const cfg = JSON.parse(process.argv[3]);
const transport = new StreamableHTTPClientTransport(url);
const client = new Client(
  { name: "agent-harness-http-ts", version: "0.0.1" },
  { capabilities: { elicitation: {} } },
);
let elicitations = 0;
client.setRequestHandler(ElicitRequestSchema, async (req) => {
  elicitations++;
  return { action: "accept", content: { answer: "ts: " + req.params.message } };
});
const results = [];
let progress = 0;
let error;
try {
  await client.connect(transport);
  await client.listTools();
  for (const c of cfg.calls) {
    const opts = c.progress ? { onprogress: () => { progress++; } } : {};
    results.push(await client.callTool({ name: c.name, arguments: c.arguments }, undefined, opts));
  }
} catch (e) {
  error = e instanceof Error ? e.message : String(e);
}
const out = { results, progress, elicitations };
if (error !== undefined) out.error = error;
process.stdout.write(JSON.stringify(out) + "\n");
try {
  await transport.terminateSession();
  await client.close();
} catch {}
process.exit(0);
