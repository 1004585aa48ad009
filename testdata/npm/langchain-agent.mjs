// An agent on LangChain.js — @langchain/mcp-adapters' MultiServerMCPClient
// for the tools, LangGraph's prebuilt ReAct agent (createReactAgent, whose
// ToolNode turns a thrown tool error into a ToolMessage) — driven by
// LangChain's own scripted model, fakeModel from @langchain/core/testing
// (no LLM): the model calls create_booking once, then stops. It records
// what the framework hands the model as that call's result — the
// ToolMessage in the second model call's messages — for the framework
// matrix (internal/e2e: TestFrameworkMatrix, SPEC §20.3).
//
// Usage: node langchain-agent.mjs CONFIG_JSON
//   CONFIG_JSON: {"transport": "stdio", "command": "...", "args": [...]}
//             or {"transport": "http", "url": "http://127.0.0.1:PORT/mcp"}
//
// It prints one JSON line on stdout: {"modelSaw": {"type": "tool_message",
// "text": the ToolMessage's text, "isError": its status is "error"},
// "modelCalls": n} or {"error": "Name: message"} when the run threw, and
// exits 0; any other failure exits 1.
import { awaitChildren } from "./spawned.mjs";
import { AIMessage } from "@langchain/core/messages";
import { fakeModel } from "@langchain/core/testing";
import { createReactAgent } from "@langchain/langgraph/prebuilt";
import { MultiServerMCPClient } from "@langchain/mcp-adapters";

const cfg = JSON.parse(process.argv[2]);
const describe = (e) => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));
const booking = { guest: "Ada Lovelace", date: "2026-12-09", room: "double" };

const out = {};
let seen;
let calls = 0;
const model = fakeModel()
  .respond(() => {
    calls++;
    return new AIMessage({ content: "", tool_calls: [{ id: "call-1", name: "create_booking", args: booking, type: "tool_call" }] });
  })
  .respond((messages) => {
    calls++;
    for (const m of messages) {
      if (m.getType?.() === "tool" || m._getType?.() === "tool") seen = m;
    }
    return new AIMessage("done");
  });

const server =
  cfg.transport === "http"
    ? { transport: "http", url: cfg.url, automaticSSEFallback: false }
    : { transport: "stdio", command: cfg.command, args: cfg.args ?? [], env: { ...process.env }, stderr: "inherit" };
const client = new MultiServerMCPClient({ mcpServers: { booking: server }, prefixToolNameWithServerName: false, useStandardContentBlocks: false });
try {
  const tools = (await client.getTools()).filter((t) => t.name === "create_booking");
  const agent = createReactAgent({ llm: model, tools });
  await agent.invoke({ messages: [{ role: "user", content: "Book a double room for Ada Lovelace on 2026-12-09." }] }, { recursionLimit: 6 });
  if (seen) {
    const c = seen.content;
    const text = typeof c === "string" ? c : c.map((b) => (b.type === "text" ? b.text : JSON.stringify(b))).join("\n");
    out.modelSaw = { type: "tool_message", text, isError: seen.status === "error" };
  }
} catch (e) {
  out.error = describe(e);
}
out.modelCalls = calls;
try { await client.close(); } catch {}
await awaitChildren();
process.stdout.write(JSON.stringify(out) + "\n");
process.exit(0);
