package plugintest

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/plugin/conformance"
)

// Conformance runs the conformance kit (conformance.Test) on the module at
// path: a subtest per check. opts.OnFailure and opts.Log are replaced;
// without opts.CacheDir a compilation cache shared by the test binary is
// used (removed by Cleanup).
func Conformance(t *testing.T, path string, opts plugin.Options) {
	t.Helper()
	if opts.CacheDir == "" && !opts.NoCache {
		opts.CacheDir = CacheDir(t)
	}
	conformance.Test(t, path, opts)
}
