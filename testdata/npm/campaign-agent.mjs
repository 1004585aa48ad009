// A minimal agent on the TypeScript MCP SDK for the campaign interop test
// (cmd/agent-harness/campaign_npm_test.go): it reads the campaign's
// mcp.json, starts the server entry named by AGENT_HARNESS_SERVER_NAME over
// stdio, books once and, after a failure, either checks with
// find_bookings first (AGENT_BEHAVIOUR=careful) or re-sends at once
// (naive).
import { readFileSync } from "node:fs";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";

const config = JSON.parse(readFileSync(process.argv[2], "utf8"));
const entry = config.mcpServers[process.env.AGENT_HARNESS_SERVER_NAME];
const careful = process.env.AGENT_BEHAVIOUR === "careful";

const client = new Client({ name: "ts-campaign-agent", version: "1.0.0" });
await client.connect(new StdioClientTransport({ command: entry.command, args: entry.args, stderr: "inherit" }));
const booking = { guest: "Grace Hopper", date: "2026-12-09", room: "single" };
const create = (key) => client.callTool({ name: "create_booking", arguments: { ...booking, idempotency_key: key } });

let res = await create("ts-1");
console.log(`create_booking: ${res.isError ? "failed" : "ok"}`);
if (res.isError) {
  if (careful) {
    const found = await client.callTool({ name: "find_bookings", arguments: { guest: booking.guest, date: booking.date } });
    const n = JSON.parse(found.content[0].text).bookings.length;
    console.log(`find_bookings: ${n} found`);
    if (n === 0) res = await create("ts-1");
  } else {
    res = await create("ts-2");
    console.log(`re-sent: ${res.isError ? "failed" : "ok"}`);
  }
}
await client.close();
