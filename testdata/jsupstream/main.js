// jsupstream is a minimal MCP server that reads and writes JSON-RPC the way
// JavaScript servers do: JSON.parse each line, answer with JSON.stringify,
// so a request id is echoed as a JavaScript number (2.0 comes back as 2,
// 9007199254740993 as 9007199254740992). It counts create_booking
// executions in the file named by its first argument.
'use strict';
const fs = require('fs');
const countsFile = process.argv[2];
let count = 0;
const rl = require('readline').createInterface({ input: process.stdin });
function send(m) { process.stdout.write(JSON.stringify(m) + '\n'); }
rl.on('line', (line) => {
  let m;
  try { m = JSON.parse(line); } catch (e) {
    send({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
    return;
  }
  if (m.id === undefined || !m.method) return;
  switch (m.method) {
    case 'initialize':
      send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: '2025-06-18', capabilities: { tools: {} }, serverInfo: { name: 'jsupstream', version: '1' } } });
      break;
    case 'tools/list':
      send({ jsonrpc: '2.0', id: m.id, result: { tools: [
        { name: 'create_booking', inputSchema: { type: 'object', properties: { room: { type: 'string' } } } },
        { name: 'get_booking', inputSchema: { type: 'object' }, annotations: { readOnlyHint: true } } ] } });
      break;
    case 'tools/call':
      if (m.params.name === 'create_booking') {
        count++;
        if (countsFile) fs.writeFileSync(countsFile, String(count));
      }
      send({ jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: m.params.name + ' done' }] } });
      break;
    default:
      send({ jsonrpc: '2.0', id: m.id, result: {} });
  }
});
