// Package plugintest holds the repository's plugin test helpers: Build
// compiles a Go plugin package for tests, CacheDir shares a compilation
// cache, and Conformance runs the conformance kit (package conformance;
// for other modules: host/plugincheck and `agent-harness plugin check`)
// as a Go test.
package plugintest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

var (
	buildMu  sync.Mutex
	builtDir string
	built    = map[string]string{}
	buildErr = map[string]error{}
)

// Build compiles the Go plugin package pkg (a path relative to the module
// root, e.g. "./plugins/dates") with GOOS=wasip1 GOARCH=wasm
// -buildmode=c-shared and returns the .wasm path. Each package is built
// once per test binary run; the files live in a temporary directory
// removed by Cleanup. It skips the test when no go command is available.
func Build(t testing.TB, pkg string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build plugins with")
	}
	buildMu.Lock()
	defer buildMu.Unlock()
	if p, ok := built[pkg]; ok {
		return p
	}
	if err, ok := buildErr[pkg]; ok {
		t.Fatal(err)
	}
	if err := ensureDir(); err != nil {
		t.Fatal(err)
	}
	root, err := moduleRoot(goCmd)
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(builtDir, strings.NewReplacer("/", "_", ".", "_").Replace(pkg)+".wasm")
	cmd := exec.Command(goCmd, "build", "-buildmode=c-shared", "-o", out, pkg)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "CGO_ENABLED=0")
	if msg, err := cmd.CombinedOutput(); err != nil {
		buildErr[pkg] = &buildError{pkg, string(msg), err}
		t.Fatal(buildErr[pkg])
	}
	built[pkg] = out
	return out
}

func ensureDir() error {
	if builtDir == "" {
		d, err := os.MkdirTemp("", "plugintest-")
		if err != nil {
			return err
		}
		builtDir = d
	}
	return nil
}

// CacheDir returns a compilation cache directory shared by the test
// binary, so each module compiles once per run; Cleanup removes it.
func CacheDir(t testing.TB) string {
	t.Helper()
	buildMu.Lock()
	defer buildMu.Unlock()
	if err := ensureDir(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(builtDir, "cache")
}

type buildError struct {
	pkg, out string
	err      error
}

func (e *buildError) Error() string {
	return "building plugin " + e.pkg + ": " + e.err.Error() + "\n" + e.out
}

func moduleRoot(goCmd string) (string, error) {
	out, err := exec.Command(goCmd, "env", "GOMOD").Output()
	if err != nil {
		return "", err
	}
	return filepath.Dir(strings.TrimSpace(string(out))), nil
}

// Cleanup removes the built modules; call it from TestMain after m.Run.
func Cleanup() {
	buildMu.Lock()
	defer buildMu.Unlock()
	if builtDir != "" {
		os.RemoveAll(builtDir)
		builtDir = ""
		built = map[string]string{}
	}
}
