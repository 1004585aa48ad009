package main

import (
	"context"
	"fmt"
	"io"
)

// runProxy is a placeholder until its issue lands.
func runProxy(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "[agent-harness] proxy: not implemented yet")
	return exitFailure
}
