package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/cuonztech/agent-harness/cmd/agent-harness/internal/skeleton"
)

// pluginNewFlags are the parsed `plugin new` flags.
type pluginNewFlags struct {
	opts skeleton.Options
	dir  string
	help bool
}

// runPluginNew is `agent-harness plugin new`.
func runPluginNew(args []string, stdout, stderr io.Writer) int {
	f, err := parsePluginNewFlags(args)
	if err != nil {
		fmt.Fprintf(stderr, "[agent-harness] plugin new: %s\n", err)
		return exitUsage
	}
	if f.help {
		fmt.Fprint(stdout, pluginNewUsage)
		return exitOK
	}
	files, err := skeleton.Generate(f.opts)
	if err != nil {
		fmt.Fprintf(stderr, "[agent-harness] plugin new: %s\n", err)
		return exitUsage
	}
	if err := skeleton.Write(f.dir, files); err != nil {
		fmt.Fprintf(stderr, "[agent-harness] plugin new: %s\n", oneLine(err.Error()))
		return exitFailure
	}
	names := make([]string, len(files))
	for i, file := range files {
		names[i] = file.Name
	}
	wasm := f.opts.Name + ".wasm"
	fmt.Fprintf(stdout, "Wrote %s: %s (%s hook).\nNext:\n  cd %s\n", f.dir, strings.Join(names, ", "), f.opts.Hook, f.dir)
	if f.opts.SDKDir == "" {
		fmt.Fprintf(stdout, "  go get %s\n", skeleton.SDKModule)
	}
	fmt.Fprintf(stdout, "  go test ./...\n  GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o %s .\n  agent-harness plugin inspect %s\n", wasm, wasm)
	return exitOK
}

func parsePluginNewFlags(args []string) (pluginNewFlags, error) {
	var f pluginNewFlags
	fs := newFlagSet("plugin new")
	hook := fs.String("hook", "", "")
	dir := fs.String("dir", "", "")
	module := fs.String("module", "", "")
	sdkDir := fs.String("sdk", "", "")
	fs.BoolVar(&f.help, "help", false, "")
	if help, err := parseFlagSet(fs, args); help || err != nil {
		f.help = help
		return f, err
	}
	switch fs.NArg() {
	case 0:
		return f, errors.New("missing NAME of the plugin")
	case 1:
		f.opts.Name = fs.Arg(0)
	default:
		return f, fmt.Errorf("unexpected argument %q (one NAME only)", fs.Arg(1))
	}
	if err := skeleton.CheckName(f.opts.Name); err != nil {
		return f, err
	}
	if !fs.Changed("hook") {
		return f, fmt.Errorf("missing --hook (%s)", strings.Join(skeleton.Hooks, ", "))
	}
	f.opts.Hook = *hook
	f.dir = f.opts.Name
	if fs.Changed("dir") {
		f.dir = *dir // not empty: parseFlagSet refuses empty values
	}
	if fs.Changed("module") {
		if err := skeleton.CheckModule(*module); err != nil {
			return f, err
		}
		f.opts.Module = *module
	}
	if fs.Changed("sdk") {
		abs, err := checkSDKDir(*sdkDir)
		if err != nil {
			return f, err
		}
		f.opts.SDKDir = abs
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
