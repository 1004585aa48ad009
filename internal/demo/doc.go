// Package demo is the demo MCP server of `agent-harness` with no
// subcommand (docs/behaviour.md §11): an MCP server on stdio whose tools let a model try
// the harness without a real backend. A session picks a scenario;
// execute_call sends one simulated tool call through the same pipeline,
// fault and judge code the proxy uses, with a simulated upstream that
// answers every forwarded call with a generic ok. Injected faults reach the
// caller directly as execute_call's result.
//
// It is a demo, not a measurement: the harness sees only what the caller
// chooses to send through execute_call. Use the proxy to measure an agent.
package demo
