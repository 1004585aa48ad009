package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestPluginNew: the `plugin new` command line — what it writes, what it
// prints, and the one-line errors (the build of the skeletons is
// TestPluginNewSkeletonsBuild).
func TestPluginNew(t *testing.T) {
	sdkDir := filepath.Join(repoRoot(t), "sdk")
	t.Chdir(t.TempDir())
	os.MkdirAll("taken", 0o755)
	os.WriteFile(filepath.Join("taken", "keep.txt"), []byte("mine"), 0o644)
	os.MkdirAll("notsdk", 0o755)
	os.WriteFile(filepath.Join("notsdk", "go.mod"), []byte("module example.com/other\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string // exact
		stderr string // exact
		files  string // directory that must hold the four files
	}{
		{name: "classifier", args: []string{"new", "hotel", "--hook", "classifier"}, code: exitOK, files: "hotel",
			stdout: "Wrote hotel: go.mod, main.go, main_test.go, README.md (classifier hook).\nNext:\n  cd hotel\n" +
				"  go mod tidy\n  go test ./...\n" +
				"  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o hotel.wasm .\n  agent-harness plugin inspect hotel.wasm\n"},
		{name: "dir and sdk", args: []string{"new", "--hook=fault", "--dir", "sub/x", "--sdk", sdkDir, "flaky"}, code: exitOK, files: "sub/x",
			stdout: "Wrote sub/x: go.mod, main.go, main_test.go, README.md (fault hook).\nNext:\n  cd sub/x\n  go test ./...\n" +
				"  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o flaky.wasm .\n  agent-harness plugin inspect flaky.wasm\n"},
		{name: "non-empty directory", args: []string{"new", "taken", "--hook", "fault"}, code: exitFailure,
			stderr: "[agent-harness] plugin new: taken already exists and is not empty; choose another NAME or --dir\n"},
		{name: "no name", args: []string{"new", "--hook", "fault"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: missing NAME of the plugin\n"},
		{name: "two names", args: []string{"new", "a", "b", "--hook", "fault"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: unexpected argument \"b\" (one NAME only)\n"},
		{name: "bad name", args: []string{"new", "My Plugin", "--hook", "fault"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: invalid NAME \"My Plugin\": only a-z, 0-9, '_' and '-' are allowed\n"},
		{name: "no hook", args: []string{"new", "p"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: missing --hook (equivalence, classifier, fault, state)\n"},
		{name: "bad hook", args: []string{"new", "p", "--hook", "classify"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: invalid --hook \"classify\": want equivalence, classifier, fault, state\n"},
		{name: "bad module", args: []string{"new", "p", "--hook", "fault", "--module", "example.com//p"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: invalid --module \"example.com//p\": empty path element\n"},
		{name: "sdk without go.mod", args: []string{"new", "p", "--hook", "fault", "--sdk", "taken"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: invalid --sdk \"taken\": no go.mod there (want the directory of module github.com/cuonztech/agent-harness/sdk)\n"},
		{name: "sdk of another module", args: []string{"new", "p", "--hook", "fault", "--sdk", "notsdk"}, code: exitUsage,
			stderr: "[agent-harness] plugin new: invalid --sdk \"notsdk\": its go.mod is not module github.com/cuonztech/agent-harness/sdk\n"},
		{name: "empty dir flag", args: []string{"new", "p", "--hook", "fault", "--dir="}, code: exitUsage,
			stderr: "[agent-harness] plugin new: flag --dir has an empty value\n"},
		{name: "empty dir value", args: []string{"new", "p", "--hook", "fault", "--dir", ""}, code: exitUsage,
			stderr: "[agent-harness] plugin new: flag --dir has an empty value\n"},
		{name: "help", args: []string{"new", "--help"}, code: exitOK, stdout: pluginNewUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"plugin"}, tt.args...), nil, &stdout, &stderr)
			if code != tt.code {
				t.Errorf("exit %d, want %d (stderr %q)", code, tt.code, stderr.String())
			}
			if stdout.String() != tt.stdout {
				t.Errorf("stdout %q, want %q", stdout.String(), tt.stdout)
			}
			if stderr.String() != tt.stderr {
				t.Errorf("stderr %q, want %q", stderr.String(), tt.stderr)
			}
			if tt.files != "" {
				for _, f := range []string{"go.mod", "main.go", "main_test.go", "README.md"} {
					if _, err := os.Stat(filepath.Join(tt.files, f)); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join("taken", "keep.txt")); string(b) != "mine" {
		t.Errorf("the refused directory was touched: keep.txt = %q", b)
	}
	if _, err := os.Stat("p"); err == nil {
		t.Error("a refused `plugin new p` created ./p")
	}
	// --sdk is written as an absolute path, so the skeleton builds from
	// anywhere.
	if b, _ := os.ReadFile(filepath.Join("sub", "x", "go.mod")); !strings.Contains(string(b), "=> "+sdkDir+"\n") {
		t.Errorf("go.mod with --sdk:\n%s\nwant a replace to %s", b, sdkDir)
	}
}
