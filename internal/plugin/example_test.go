package plugin_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

// Loading a plugin and using its classifier. The minimal plugin has no
// opinion, so the next classification stage would decide.
func ExampleLoad() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "minimal.wasm")
	os.WriteFile(path, minimal.Wasm, 0o644)

	ctx := context.Background()
	p, err := plugin.Load(ctx, path, plugin.Options{NoCache: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer p.Close(ctx)
	m := p.Manifest()
	fmt.Println(m.Name, m.Version, m.Hooks, m.Faults)
	_, ok := p.Classifier().Classify(classify.Tool{Name: "check_in_guest"})
	fmt.Println("opinion:", ok)
	// Output:
	// minimal 0.1.0 [classify equiv_key fault] [noop]
	// opinion: false
}
