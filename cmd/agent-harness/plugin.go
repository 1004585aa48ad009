package main

import (
	"context"
	"fmt"
	"io"
)

// runPlugin is a placeholder until its issue lands.
func runPlugin(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "[agent-harness] plugin: not implemented yet")
	return exitFailure
}
