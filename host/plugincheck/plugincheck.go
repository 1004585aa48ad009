// Package plugincheck is the conformance kit for agent-harness plugins
// (ABI v1, sdk/ABI.md): it loads a .wasm module exactly as the proxy would
// and runs the checks every example plugin passes — the checks of
// `agent-harness plugin check FILE.wasm`, for a Go test:
//
//	func TestConformance(t *testing.T) {
//		plugincheck.Test(t, "myplugin.wasm", plugincheck.Options{})
//	}
//
// The module must be built first (GOOS=wasip1 GOARCH=wasm go build
// -buildmode=c-shared for a Go plugin). Importing this package makes the
// agent-harness module (and the WebAssembly runtime) a requirement of the
// importing module; a plugin module that wants to require the SDK alone
// runs `agent-harness plugin check` instead.
package plugincheck

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/plugin/conformance"
)

// Options configure a check. The zero value checks the plugin without a
// configuration, with the compilation cache in the user cache directory.
type Options struct {
	// Config is the configuration JSON passed to ah_init (the proxy's
	// --plugin-config NAME=JSON). nil passes null.
	Config json.RawMessage
	// CacheDir holds the compilation cache. Default
	// os.UserCacheDir()/agent-harness/wazero, the proxy's.
	CacheDir string
	// NoCache compiles the module without a file cache.
	NoCache bool
	// Log receives the plugin's output (fd 1, fd 2, sdk.Log), one line per
	// write. nil discards it; Test sends it to t.Log.
	Log io.Writer
}

// Result is the outcome of one check.
type Result struct {
	// Name is the check's name: "load", then one per declared hook
	// ("classify", "equiv_key", "equiv_same", "fault"), "many calls",
	// "concurrent calls" and "stays enabled".
	Name string
	// Failure is empty when the check passed, else its first problem,
	// followed by "(and N more)" when there were more. It may hold the
	// plugin's own text unescaped.
	Failure string
}

// OK reports whether the check passed.
func (r Result) OK() bool { return r.Failure == "" }

// Check loads the module at path and runs every check that applies to it,
// in order. When the module does not load, the only result is "load"'s.
// Each hook call has a deadline of 5 s: the checks are about behaviour,
// not speed.
func Check(ctx context.Context, path string, opts Options) []Result {
	rs := conformance.Run(ctx, path, opts.host())
	out := make([]Result, len(rs))
	for i, r := range rs {
		out[i] = Result{Name: r.Name, Failure: r.Failure}
	}
	return out
}

// Test runs Check as a Go test: a module that does not load fails the
// test at once; every other check is a subtest of its name.
func Test(t *testing.T, path string, opts Options) {
	t.Helper()
	conformance.Test(t, path, opts.host())
}

func (o Options) host() plugin.Options {
	return plugin.Options{Config: o.Config, CacheDir: o.CacheDir, NoCache: o.NoCache, Log: o.Log}
}
