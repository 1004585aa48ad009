package plugin_test

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/internal/plugin/plugintest"
)

var (
	cacheOnce sync.Once
	cacheDir  string
)

// sharedCache is one compilation cache directory for the test binary, so
// the Go plugins compile once per run.
func sharedCache(t testing.TB) string {
	cacheOnce.Do(func() { cacheDir = plugintest.CacheDir(t) })
	return cacheDir
}

var (
	warmMu     sync.Mutex
	warmBin    string // the precompile command, built once
	warmBinErr error
	warmed     = map[string]bool{}
)

// goPlugin builds the Go plugin package pkg (plugintest.Build) and compiles
// it into sharedCache, each once per test binary, with the precompile
// command (./internal/precompile) built without the race detector. Under
// -race wazero's compiler runs about ten times slower (some 15 s of CPU
// for one Go plugin), and only TestCompilationCache is about compiling: the
// other tests load the plugins from the shared cache. The cached code is
// the same whichever binary compiled it (wazero keys it by module, wazero
// version and CPU), and precompile loads with plugin.Load itself.
func goPlugin(t testing.TB, pkg string) string {
	t.Helper()
	path := plugintest.Build(t, pkg)
	dir := sharedCache(t)
	warmMu.Lock()
	defer warmMu.Unlock()
	if warmed[path] {
		return path
	}
	if warmBin == "" && warmBinErr == nil {
		// Next to the built plugins: plugintest.Cleanup removes it.
		bin := filepath.Join(filepath.Dir(path), "precompile")
		// wazero keys its cache directory and entries by its version, read
		// from the build information, which a test binary lacks: give the
		// command the version this binary reads.
		ldflags := "-ldflags=-X github.com/tetratelabs/wazero/internal/version.version=" + wazeroVersion()
		if out, err := exec.Command("go", "build", ldflags, "-o", bin, "./internal/precompile").CombinedOutput(); err != nil {
			warmBinErr = fmt.Errorf("building the precompile command: %v\n%s", err, out)
		} else {
			warmBin = bin
		}
	}
	if warmBinErr != nil {
		t.Fatal(warmBinErr)
	}
	out, err := exec.Command(warmBin, dir, path).CombinedOutput()
	if err != nil {
		t.Fatalf("precompile %s: %v\n%s", pkg, err, out)
	}
	if len(out) > 0 {
		t.Logf("precompile %s: %s", pkg, out) // a plugin that loads with an error
	}
	if _, err := os.Stat(filepath.Join(dir, "wazero-"+wazeroVersion()+"-"+runtime.GOARCH+"-"+runtime.GOOS)); err != nil {
		// Only slower: the loads compile the plugin themselves.
		t.Logf("precompile %s did not fill the cache this test binary reads: %v", pkg, err)
	}
	warmed[path] = true
	return path
}

// wazeroVersion is the version wazero's compilation cache uses in this
// binary, found as wazero's internal/version.GetWazeroVersion finds it:
// "dev" in a test binary, which has no module information.
func wazeroVersion() string {
	missing := func(v string) bool { return v == "" || v == "(devel)" }
	var v string
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if strings.Contains(dep.Path, "github.com/tetratelabs/wazero") {
				v = dep.Version
			}
		}
		if missing(v) {
			v = info.Main.Version
		}
	}
	if missing(v) {
		return "dev"
	}
	return v
}

// logBuffer is a concurrency-safe io.Writer.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
