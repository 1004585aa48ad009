package minimal

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/cuonztech/agent-harness/host/plugincheck"
)

// TestConformance runs the conformance kit a plugin author would use (the
// checks of `agent-harness plugin check minimal.wasm`).
func TestConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "minimal.wasm")
	if err := os.WriteFile(path, Wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	plugincheck.Test(t, path, plugincheck.Options{NoCache: true})
}
