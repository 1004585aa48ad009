// A minimal agent on OpenAI Agents JS's MCPServerStdio (the MCP SDK v2
// client, versionNegotiation "auto": it starts the server command twice per
// connect, a server/discover probe and then the session) for the campaign
// version-probe test (internal/e2e/probe_e2e_test.go): it reads the
// campaign's mcp.json, connects to the server entry named by
// AGENT_HARNESS_SERVER_NAME, books once and, after a failure, either checks
// with find_bookings first (AGENT_BEHAVIOUR=careful) or re-sends at once
// (naive). No model is called.
import { readFileSync } from "node:fs";
import { MCPServerStdio } from "@openai/agents-core";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const entry = config.mcpServers[process.env.AGENT_HARNESS_SERVER_NAME];
const careful = process.env.AGENT_BEHAVIOUR === "careful";

const server = new MCPServerStdio({ name: "openai-agents-campaign-agent", command: entry.command, args: entry.args, env: { ...process.env } });
await server.connect();
const booking = { guest: "Grace Hopper", date: "2026-12-09", room: "single" };
const create = (key) => server.callToolResult("create_booking", { ...booking, idempotency_key: key });

let res = await create("oa-1");
console.log(`create_booking: ${res.isError ? "failed" : "ok"}`);
if (res.isError) {
  if (careful) {
    const found = await server.callToolResult("find_bookings", { guest: booking.guest, date: booking.date });
    const n = JSON.parse(found.content[0].text).bookings.length;
    console.log(`find_bookings: ${n} found`);
    if (n === 0) res = await create("oa-1");
  } else {
    res = await create("oa-2");
    console.log(`re-sent: ${res.isError ? "failed" : "ok"}`);
  }
}
await server.close();
