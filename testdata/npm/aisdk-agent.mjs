// An agent on the Vercel AI SDK (ai + @ai-sdk/mcp) driven by the SDK's own
// scripted model, MockLanguageModelV4 from ai/test (no LLM): the model
// calls create_booking once, then stops. It records what the AI SDK hands
// the model as that call's result — the tool-result part of the second
// model call's prompt — for the framework matrix (internal/e2e:
// TestFrameworkMatrix, SPEC §20.3).
//
// Usage: node aisdk-agent.mjs CONFIG_JSON
//   CONFIG_JSON: {"transport": "stdio", "command": "...", "args": [...]}
//             or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp"},
//             and "discover": true (server/discover first: a 2026-07-28
//             session where the server offers it) or false (initialize: a
//             2025 session).
//
// It prints one JSON line on stdout: {"version": the negotiated revision,
// "modelSaw": {"type": output type,
// "text": the text the model reads, "isError": whether the part is an
// error}, "modelCalls": n} or {"error": "Name: message"} when the run
// threw, and exits 0; any other failure exits 1.
import { awaitChildren } from "./spawned.mjs";
import { createMCPClient } from "@ai-sdk/mcp";
import { Experimental_StdioMCPTransport } from "@ai-sdk/mcp/mcp-stdio";
import { generateText, stepCountIs } from "ai";
import { MockLanguageModelV4 } from "ai/test";

const cfg = JSON.parse(process.argv[2]);
const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 1, text: 1, reasoning: undefined },
};
const booking = { guest: "Ada Lovelace", date: "2026-12-09", room: "double" };

const out = {};
let seen;
let calls = 0;
const model = new MockLanguageModelV4({
  doGenerate: async ({ prompt }) => {
    calls++;
    if (calls === 1) {
      return {
        content: [{ type: "tool-call", toolCallId: "call-1", toolName: "create_booking", input: JSON.stringify(booking) }],
        finishReason: { unified: "tool-calls", raw: "tool_calls" },
        usage,
        warnings: [],
      };
    }
    for (const m of prompt) {
      if (m.role !== "tool") continue;
      for (const p of m.content) {
        if (p.type === "tool-result") seen = p.output;
      }
    }
    return { content: [{ type: "text", text: "done" }], finishReason: { unified: "stop", raw: "stop" }, usage, warnings: [] };
  },
});

let client;
try {
  const transport =
    cfg.transport === "http"
      ? { type: "http", url: cfg.url }
      : new Experimental_StdioMCPTransport({ command: cfg.command, args: cfg.args ?? [], env: { ...process.env }, stderr: "inherit" });
  client = await createMCPClient({ transport, protocolVersionDiscovery: cfg.discover ?? true });
  out.version = client.protocolVersion;
  const tools = await client.tools();
  await generateText({ model, tools: { create_booking: tools.create_booking }, prompt: "Book a double room for Ada Lovelace on 2026-12-09.", stopWhen: stepCountIs(2) });
  if (seen) {
    // output: {type: "text"|"json"|"error-text"|"error-json"|"content", value}
    const v = seen.value;
    const text =
      typeof v === "string" ? v
      : seen.type === "content" ? v.map((c) => (c.type === "text" ? c.text : JSON.stringify(c))).join("\n")
      : JSON.stringify(v);
    out.modelSaw = { type: seen.type, text, isError: seen.type.startsWith("error") };
  }
  out.modelCalls = calls;
} catch (e) {
  out.error = describe(e);
  out.modelCalls = calls;
}
try { await client?.close(); } catch {}
await awaitChildren();
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
