// Package trace writes and reads the --trace journal (docs/behaviour.md §7): a JSON
// Lines file with a header line (format, version, harness version, the
// settings that affect judging) and one line per judge event, with the raw
// tools/call params, the raw results and the raw tool definitions of each
// listing, and times in milliseconds since the proxy started. Rejudge
// applies a read trace to a fresh judge with the recorded or replaced
// settings. The format is documented in docs/trace.md and its lines in
// trace.schema.json.
package trace
