package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var updateCLI = flag.Bool("update-cli", false, "rewrite testdata/cli from the current code")

// cliEnv are the environment variables that change what a command line
// means (the reference agent's fallbacks): unset for the recorded lines.
var cliEnv = []string{"AGENT_HARNESS_BEHAVIOUR", "AGENT_HARNESS_MCP_CONFIG", "AGENT_HARNESS_SERVER_NAME", "AGENT_HARNESS_SEED"}

// recordedLine is one command line refused with a usage error, and what the
// user saw: testdata/cli/usage-errors.jsonl was recorded with the binary
// of main built before the flags moved to flagSet (issue 18 item 6).
type recordedLine struct {
	Args   []string `json:"args"`
	Exit   int      `json:"exit"`
	Stdout string   `json:"stdout"`
	Stderr string   `json:"stderr"`
}

// runRecorded runs args in-process in an empty directory, nothing on stdin.
func runRecorded(t *testing.T, args []string) recordedLine {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &stdout, &stderr)
	return recordedLine{Args: args, Exit: code, Stdout: stdout.String(), Stderr: stderr.String()}
}

// TestCommandLinesAsRecorded: every recorded usage error keeps its stderr
// line, its empty stdout and exit 2 — the wording scripts and tests see.
func TestCommandLinesAsRecorded(t *testing.T) {
	for _, k := range cliEnv {
		t.Setenv(k, "")
	}
	path, err := filepath.Abs(filepath.Join("testdata", "cli", "usage-errors.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var want recordedLine
		if err := json.Unmarshal(sc.Bytes(), &want); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		line := runRecorded(t, want.Args)
		if !*updateCLI && !sameLine(line, want) {
			t.Errorf("%q:\n got exit %d, stdout %q, stderr %q\nwant exit %d, stdout %q, stderr %q",
				want.Args, line.Exit, line.Stdout, line.Stderr, want.Exit, want.Stdout, want.Stderr)
		}
		b, _ := json.Marshal(line)
		got.Write(append(b, '\n'))
	}
	if *updateCLI {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func sameLine(a, b recordedLine) bool {
	return a.Exit == b.Exit && a.Stdout == b.Stdout && a.Stderr == b.Stderr
}

// TestHelpAsRecorded: every subcommand's --help and -h print
// testdata/cli/help/NAME.txt byte for byte on stdout, exit 0.
func TestHelpAsRecorded(t *testing.T) {
	lines := map[string][]string{
		"top": nil, "proxy": {"proxy"}, "benchmark": {"benchmark"}, "plugin": {"plugin"},
		"plugin-inspect": {"plugin", "inspect"}, "plugin-check": {"plugin", "check"}, "plugin-new": {"plugin", "new"}, "judge": {"judge"},
		"report": {"report"}, "campaign": {"campaign"}, "campaign-merge": {"campaign", "merge"},
		"sample-server": {"sample-server"}, "agent": {"agent"},
	}
	for name, line := range lines {
		path := filepath.Join("testdata", "cli", "help", name+".txt")
		for _, help := range []string{"--help", "-h"} {
			got := runRecorded(t, append(append([]string{}, line...), help))
			if *updateCLI {
				if err := os.WriteFile(path, []byte(got.Stdout), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got.Exit != exitOK || got.Stdout != string(want) || got.Stderr != "" {
				t.Errorf("%q %s: exit %d, stderr %q, stdout differs from %s:\n%s", line, help, got.Exit, got.Stderr, path, got.Stdout)
			}
		}
	}
}
