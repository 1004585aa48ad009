package main

import (
	"context"
	"fmt"
	"io"
)

// runDemo is a placeholder until its issue lands.
func runDemo(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "[agent-harness] demo: not implemented yet")
	return exitFailure
}
