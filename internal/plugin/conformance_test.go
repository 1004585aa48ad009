package plugin_test

import (
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/plugin/plugintest"
)

func TestConformanceGoPlugins(t *testing.T) {
	for _, pkg := range []string{"./plugins/dates", "./plugins/verbs", "./plugins/faultpack"} {
		t.Run(pkg, func(t *testing.T) {
			plugintest.Conformance(t, goPlugin(t, pkg), plugin.Options{CacheDir: sharedCache(t)})
		})
	}
}
