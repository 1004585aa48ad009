// An agent on OpenAI Agents JS (@openai/agents-core) driven by its own
// scripted model, ScriptedModel from @openai/agents-core/testing (no LLM):
// the model calls create_booking once, then stops. It records what the
// framework hands the model as that call's result — the
// function_call_result item of the second model call's input — for the
// framework matrix (internal/e2e: TestFrameworkMatrix, SPEC §20.3). The
// framework's MCP client is the MCP SDK v2 client with versionNegotiation
// "auto" (over stdio it spawns the command twice: a server/discover probe,
// then the session).
//
// Usage: node openai-agents-agent.mjs CONFIG_JSON
//   CONFIG_JSON: {"transport": "stdio", "command": "...", "args": [...]}
//             or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp"}
//
// It prints one JSON line on stdout: {"version": the negotiated revision,
// "modelSaw": {"type": output type, "text": the text the model reads,
// "isError": always false: the item has no error flag}, "modelCalls": n}
// or {"error": "Name: message"} when the run threw, and exits 0; any other
// failure exits 1.
import { awaitChildren } from "./spawned.mjs";
import { Agent, MCPServerStdio, MCPServerStreamableHttp, run } from "@openai/agents-core";
import { ScriptedModel, assistantMessage, functionCall, modelResponder } from "@openai/agents-core/testing";

const cfg = JSON.parse(process.argv[2]);
const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
const booking = { guest: "Ada Lovelace", date: "2026-12-09", room: "double" };

const out = {};
let seen;
const model = new ScriptedModel([
  modelResponder(() => [functionCall("create_booking", booking, { callId: "call-1" })]),
  modelResponder((call) => {
    for (const item of call.request.input) {
      if (typeof item === "object" && item.type === "function_call_result") seen = item;
    }
    return [assistantMessage("done")];
  }),
]);

const server =
  cfg.transport === "http"
    ? new MCPServerStreamableHttp({ name: "agent-harness-framework-matrix", url: cfg.url })
    : new MCPServerStdio({ name: "agent-harness-framework-matrix", command: cfg.command, args: cfg.args ?? [], env: { ...process.env } });
try {
  await server.connect();
  out.version = server.underlying?.session?.getNegotiatedProtocolVersion?.();
  const agent = new Agent({ name: "booker", instructions: "Book what you are asked to.", model, mcpServers: [server] });
  await run(agent, "Book a double room for Ada Lovelace on 2026-12-09.", { maxTurns: 3 });
  if (seen) {
    const o = seen.output;
    const text =
      typeof o === "string" ? o
      : o?.type === "text" ? o.text
      : Array.isArray(o) ? o.map((c) => (c.type === "input_text" || c.type === "text" ? c.text : JSON.stringify(c))).join("\n")
      : JSON.stringify(o);
    out.modelSaw = { type: Array.isArray(o) ? "content" : typeof o === "string" ? "string" : o?.type, text, isError: false };
  }
} catch (e) {
  out.error = describe(e);
}
out.modelCalls = model.calls.length;
try { await server.close(); } catch {}
await awaitChildren();
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
