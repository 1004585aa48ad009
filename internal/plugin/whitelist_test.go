package plugin_test

import (
	"slices"
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin/internal/sandbox"
)

// The WASI whitelist is exactly what real Go plugins import (plus the
// optional agent_harness.log): when a Go release needs another function,
// this test names it.
func TestWhitelistMatchesGoImports(t *testing.T) {
	var union []string
	for _, pkg := range []string{"./plugins/dates", "./plugins/verbs", "./plugins/faultpack", "./internal/plugin/testdata/hostile"} {
		p, _, _ := loadWith(t, goPlugin(t, pkg), nil)
		for _, imp := range p.LoadStats().Imports {
			if !slices.Contains(union, imp) {
				union = append(union, imp)
			}
		}
	}
	slices.Sort(union)
	want := sandbox.Names()
	slices.Sort(want)
	if !slices.Equal(union, want) {
		t.Errorf("Go plugins import\n%q\nthe whitelist is\n%q", union, want)
	}
}
