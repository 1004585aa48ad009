package minimal

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/plugin/plugintest"
)

var update = flag.Bool("update", false, "rewrite minimal.wasm from Assemble")

func TestWasmUpToDate(t *testing.T) {
	got := Assemble()
	if *update {
		if err := os.WriteFile("minimal.wasm", got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if !bytes.Equal(got, Wasm) {
		t.Error("minimal.wasm is stale; run go test ./plugins/minimal -update")
	}
}

func TestConformance(t *testing.T) {
	path := filepath.Join(t.TempDir(), "minimal.wasm")
	if err := os.WriteFile(path, Wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	plugintest.Conformance(t, path, plugin.Options{NoCache: true})
}
