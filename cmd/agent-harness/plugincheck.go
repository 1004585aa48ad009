package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/plugin/conformance"
)

// pluginCheckUsage is the text of `agent-harness plugin check --help`.
func pluginCheckUsage() string {
	return `Usage: agent-harness plugin check [flags] FILE.wasm

Runs the ABI v1 conformance checks on the WebAssembly plugin FILE.wasm,
whatever language it was written in: it loads as the proxy would load it,
answers every declared hook for ordinary inputs without a failure, answers
the same input the same way on fresh instances, keeps the built-in
equivalences, takes inputs up to 512 KiB, survives many and concurrent
calls and stays enabled. One line per check on stdout:

  ok   NAME
  FAIL NAME: REASON

Exit status: 0 every check passed, 1 a check failed, 2 a usage error or
FILE.wasm cannot be read. Each hook call has a deadline of 5s (the checks
are about behaviour; plugin inspect shows the speed). The plugin's own
output goes to stderr.

Flags:
` + pluginCheckFlagSet(&pluginFlags{}).usage() + `
The ABI is documented in sdk/ABI.md; Go tests can run the same checks with
the package github.com/cuonztech/agent-harness/host/plugincheck.
`
}

// pluginCheckFlagSet defines the flags of `plugin check` on f: those of
// `plugin inspect` that apply (no limits: the checks set the hook
// deadline, the other limits are the proxy's defaults; no --json).
func pluginCheckFlagSet(f *pluginFlags) *flagSet {
	s := newFlagSet("plugin check")
	s.quoted = true
	pluginConfigFlag(s, f)
	pluginCacheDirFlag(s, f)
	s.helpAndVersion("show this help", "print the version and exit")
	return s
}

// runPluginCheck is `agent-harness plugin check FILE.wasm`.
func runPluginCheck(ctx context.Context, args []string, std stdio) error {
	var f pluginFlags
	words, err := pluginCheckFlagSet(&f).parse(args)
	if err != nil {
		return withUsage(err, pluginCheckUsage)
	}
	switch len(words) {
	case 0:
		return usagef("missing FILE.wasm")
	case 1:
		f.path = words[0]
	default:
		return usagef("unexpected argument %q (one FILE.wasm only)", words[1])
	}
	if err := readable(f.path); err != nil {
		return usagef("%v", err)
	}
	f.opts.Log = std.err // the plugin's output and host warnings, prefixed
	failed := false
	for _, r := range conformance.Run(ctx, f.path, f.opts) {
		if r.OK() {
			fmt.Fprintf(std.out, "ok   %s\n", r.Name)
			continue
		}
		failed = true
		fmt.Fprintf(std.out, "FAIL %s: %s\n", r.Name, escape.Line(r.Failure))
	}
	if failed {
		return exitCode(exitFailure)
	}
	return nil
}

// readable reports why path cannot be read as a file, nil if it can:
// that is a usage error (exit 2), while a file that is no plugin fails
// the load check (exit 1).
func readable(path string) error {
	fh, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("reading %s: %w", path, err)
	}
	defer fh.Close()
	st, err := fh.Stat()
	switch {
	case err != nil:
		return fmt.Errorf("reading %s: %w", path, err)
	case st.IsDir():
		return fmt.Errorf("reading %s: is a directory", path)
	}
	return nil
}
