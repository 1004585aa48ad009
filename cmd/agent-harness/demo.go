package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/demo"
)

// runDemo serves the demo MCP server on stdio (behaviour §11) until the client
// closes stdin. stdout carries MCP only; the one log line goes to stderr.
func runDemo(ctx context.Context, args []string, std stdio) error {
	if len(args) > 0 {
		return usagef("unknown command or flag %q%s; run \"agent-harness --help\"", args[0], topLevelHint(args[0]))
	}
	fmt.Fprintln(std.err, "[agent-harness] demo MCP server on stdio: a demo, not a measurement (use \"agent-harness proxy\" to measure an agent)")
	srv := demo.New(demo.Options{}).MCPServer()
	// Draining: a client that closes stdin right after its requests (a
	// shell pipe) still gets every answer.
	t := &demo.DrainingTransport{Transport: &mcp.IOTransport{Reader: io.NopCloser(std.in), Writer: nopWriteCloser{std.out}}}
	if err := srv.Run(ctx, t); err != nil && !isEndOfSession(err) {
		return exitError{cmd: "demo", code: exitFailure, msg: err.Error()}
	}
	return nil
}

// nopWriteCloser lets the process's stdout be an MCP transport's writer
// without being closed by it.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

// isEndOfSession reports whether err only says the client went away.
func isEndOfSession(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) ||
		errors.Is(err, context.Canceled) || errors.Is(err, io.ErrClosedPipe)
}

// topLevelHint suggests the subcommand or top-level flag closest to an
// unknown first argument: " (did you mean proxy?)", or "".
func topLevelHint(arg string) string {
	if strings.HasPrefix(arg, "-") {
		if s := closestName(arg, []string{"version", "help"}); s != "" {
			return " (did you mean --" + s + "?)"
		}
		return ""
	}
	if s := closestName(arg, subcommands); s != "" {
		return " (did you mean " + s + "?)"
	}
	return ""
}
