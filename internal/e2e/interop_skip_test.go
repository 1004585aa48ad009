package e2e

// Interop tests run real Node.js clients and servers from
// testdata/npm/node_modules. Without node or those packages they skip, and
// a skip alone is visible only with -v: go test prints nothing of a
// passing package but its "ok" line. So every such skip goes through
// skipInterop, which counts it, and TestMain prints one line naming how
// many were skipped and how to get them (on the terminal, which go test
// does not buffer, else on stderr). With AGENT_HARNESS_REQUIRE_INTEROP=1
// (.ci/run sets it) the skip is a failure instead.

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// requireInteropEnv turns interop skips into failures when set to 1.
const requireInteropEnv = "AGENT_HARNESS_REQUIRE_INTEROP"

// nodeModulesEnv, when set, replaces testdata/npm/node_modules as the
// place the interop tests look for their packages (a test hook: an empty
// directory stands for a fresh clone).
const nodeModulesEnv = "AGENT_HARNESS_TEST_NODE_MODULES"

// What an interop test can lack, as skipInterop's line says it.
const (
	missingNode = "node is not on PATH (install Node.js, then run: npm ci --prefix testdata/npm)"
	missingNPM  = "the npm packages are not installed (run: npm ci --prefix testdata/npm)"
)

var interopSkips struct {
	sync.Mutex
	count   int
	missing []string // distinct, in order
}

// skipInterop skips t, which needs what missing names, or fails it under
// AGENT_HARNESS_REQUIRE_INTEROP=1.
func skipInterop(t testing.TB, missing string) {
	t.Helper()
	if os.Getenv(requireInteropEnv) == "1" {
		t.Fatalf("interop test not run: %s; %s=1 requires it", missing, requireInteropEnv)
	}
	interopSkips.Lock()
	interopSkips.count++
	known := false
	for _, m := range interopSkips.missing {
		known = known || m == missing
	}
	if !known {
		interopSkips.missing = append(interopSkips.missing, missing)
	}
	interopSkips.Unlock()
	t.Skip("skipping the interop test: " + missing)
}

// nodeModules is the directory of the interop tests' npm packages.
func nodeModules(t testing.TB) string {
	if d := os.Getenv(nodeModulesEnv); d != "" {
		return d
	}
	return filepath.Join(repoRoot(t), "testdata", "npm", "node_modules")
}

// interopSkipLine is the one line for the skips counted so far; "" when
// none.
func interopSkipLine() string {
	interopSkips.Lock()
	defer interopSkips.Unlock()
	if interopSkips.count == 0 {
		return ""
	}
	noun := "tests"
	if interopSkips.count == 1 {
		noun = "test"
	}
	return fmt.Sprintf("internal/e2e: skipped %d interop %s: %s\n", interopSkips.count, noun, strings.Join(interopSkips.missing, "; "))
}

// printInteropSkips writes interopSkipLine to the controlling terminal
// when there is one (go test shows a passing package's own output only
// with -v, but the terminal is not go test's to buffer), else to stderr.
func printInteropSkips() {
	line := interopSkipLine()
	if line == "" {
		return
	}
	var w io.Writer = os.Stderr
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		defer tty.Close()
		w = tty
	}
	fmt.Fprint(w, line)
}
