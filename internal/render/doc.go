// Package render turns a run's report file (parsed by report.ParseRun)
// into JUnit XML for `agent-harness report --format junit`. The Markdown
// is report.Markdown; a campaign's campaign.json is rendered by the
// campaign package.
package render
