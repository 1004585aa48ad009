// Package selftest is the harness's self-test behind `agent-harness
// benchmark` (docs/behaviour.md §10): two deterministic reference agents, CAREFUL and
// NAIVE (internal/refagent), talk MCP through the same relay and pipeline a user runs, in front of
// a simulated booking backend (the sample server's, internal/sampleserver, with key replay
// off: every create_booking executes), once per scenario and run. The harness passes
// its self-test when every run gets the verdict expected for its agent.
//
// Everything runs in-process: the agents are go-sdk MCP clients connected to
// the relay through pipes, the backend is a go-sdk MCP server connected to the
// relay as its upstream. Time is a fake clock shared by one run's pipeline,
// backend and agent, so a 60 s wait after a 429 and backend jitter cost no
// wall time, and results do not depend on the machine's speed.
package selftest
