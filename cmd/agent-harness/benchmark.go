package main

import (
	"context"
	"fmt"
	"io"
)

// runBenchmark is a placeholder until its issue lands.
func runBenchmark(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fmt.Fprintln(stderr, "[agent-harness] benchmark: not implemented yet")
	return exitFailure
}
