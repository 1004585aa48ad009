package main

import (
	"strings"
	"testing"
)

// TestProxyUsageErrors: a bad command line is one stderr line and exit 2,
// before anything starts.
func TestProxyUsageErrors(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"unknown flag", []string{"--bogus"}, "[agent-harness] proxy: unknown flag --bogus\n"},
		{"missing command", []string{"--scenario", "F1"}, "[agent-harness] proxy: flag --upstream-command is required (or give the command after --: agent-harness proxy [flags] -- CMD [ARGS...])\n"},
		{"bad timeout", []string{"--upstream-command", "x", "--upstream-timeout", "soon"}, "[agent-harness] proxy: flag --upstream-timeout: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr strings.Builder
			code := run(t.Context(), append([]string{"proxy"}, tt.args...), strings.NewReader(""), &stdout, &stderr)
			if code != exitUsage {
				t.Errorf("exit %d, want %d", code, exitUsage)
			}
			if stdout.Len() != 0 {
				t.Errorf("stdout: %q", stdout.String())
			}
			if !strings.HasPrefix(stderr.String(), tt.want) || strings.Count(stderr.String(), "\n") != 1 {
				t.Errorf("stderr %q, want one line starting %q", stderr.String(), tt.want)
			}
		})
	}
}
