// Imported first by the framework agents (aisdk-agent.mjs, langchain-agent.mjs,
// openai-agents-agent.mjs): it records every process the framework's MCP
// client spawns, so that the script can await their exit before it ends —
// the clients' close() signals the server process without waiting for it,
// and the test reads the proxy's report file only once the proxy has
// exited (it writes the final report on the way out).
import { createRequire, syncBuiltinESMExports } from "node:module";

const cp = createRequire(import.meta.url)("node:child_process");
const children = [];
const spawn = cp.spawn;
cp.spawn = function (...args) {
  const child = spawn.apply(this, args);
  children.push(new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve() : child.once("exit", resolve))));
  return child;
};
syncBuiltinESMExports();

// awaitChildren resolves when every spawned process has exited.
export const awaitChildren = () => Promise.all(children);
