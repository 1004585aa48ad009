package plugin_test

import (
	"os"
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin/plugintest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	plugintest.Cleanup()
	os.Exit(code)
}
