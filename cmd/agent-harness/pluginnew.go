package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuonztech/agent-harness/internal/skeleton"
)

// pluginNewFlags are the parsed `plugin new` flags.
type pluginNewFlags struct {
	opts skeleton.Options
	dir  string
}

// runPluginNew is `agent-harness plugin new`.
func runPluginNew(_ context.Context, args []string, std stdio) error {
	stdout := std.out
	f, err := parsePluginNewFlags(args)
	if err != nil {
		return withUsage(err, func() string { return pluginNewUsage })
	}
	if f.opts.SDKDir == "" {
		// The published SDK released with this binary (behaviour §12.5).
		f.opts.SDKVersion = skeleton.SDKVersion(buildInfo())
	}
	files, err := skeleton.Generate(f.opts)
	if err != nil {
		return usagef("%s", err)
	}
	if err := skeleton.Write(f.dir, files); err != nil {
		return err
	}
	names := make([]string, len(files))
	for i, file := range files {
		names[i] = file.Name
	}
	wasm := f.opts.Name + ".wasm"
	fmt.Fprintf(stdout, "Wrote %s: %s (%s hook).\nNext:\n  cd %s\n", f.dir, strings.Join(names, ", "), f.opts.Hook, f.dir)
	if f.opts.SDKDir == "" {
		fmt.Fprintf(stdout, "  go mod tidy\n")
	}
	fmt.Fprintf(stdout, "  go test ./...\n  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o %s .\n  agent-harness plugin inspect %s\n", wasm, wasm)
	return nil
}

// parsePluginNewFlags parses the flags of `plugin new` (the --help is
// pluginNewUsage, written by hand); the checks that need NAME run after
// parsing.
func parsePluginNewFlags(args []string) (pluginNewFlags, error) {
	var f pluginNewFlags
	s := newFlagSet("plugin new")
	s.quoted = true
	s.text(&f.opts.Hook, "hook", "HOOK", "", "")
	s.text(&f.dir, "dir", "DIR", "", "")
	s.value(funcValue(func(v string) error {
		if err := skeleton.CheckModule(v); err != nil {
			return usagef("%s", err)
		}
		f.opts.Module = v
		return nil
	}), "module", "PATH", "", "")
	s.value(funcValue(func(v string) error {
		abs, err := checkSDKDir(v)
		if err != nil {
			return usagef("%s", err)
		}
		f.opts.SDKDir = abs
		return nil
	}), "sdk", "DIR", "", "")
	s.helpAndVersion("", "")
	words, err := s.parse(args)
	if err != nil {
		return f, err
	}
	switch len(words) {
	case 0:
		return f, usagef("missing NAME of the plugin")
	case 1:
		f.opts.Name = words[0]
	default:
		return f, usagef("unexpected argument %q (one NAME only)", words[1])
	}
	if err := skeleton.CheckName(f.opts.Name); err != nil {
		return f, usagef("%s", err)
	}
	if !s.given("hook") {
		return f, usagef("missing --hook (%s)", strings.Join(skeleton.Hooks, ", "))
	}
	if !s.given("dir") {
		f.dir = f.opts.Name
	}
	return f, nil
}

// checkSDKDir returns dir as an absolute path after checking that it holds
// the SDK module.
func checkSDKDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("invalid --sdk %q: %v", dir, err)
	}
	b, err := os.ReadFile(filepath.Join(abs, "go.mod"))
	if err != nil {
		return "", fmt.Errorf("invalid --sdk %q: no go.mod there (want the directory of module %s)", dir, skeleton.SDKModule)
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 2 && f[0] == "module" && strings.Trim(f[1], `"`) == skeleton.SDKModule {
			return abs, nil
		}
	}
	return "", fmt.Errorf("invalid --sdk %q: its go.mod is not module %s", dir, skeleton.SDKModule)
}
