package e2e

import (
	"bytes"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// TestInteropSkipsSayWhatAndHow runs two interop tests of this test binary
// as a fresh clone would (an empty node_modules), in a new session so it
// has no terminal: they skip, and the binary prints one line saying how
// many and how to get them, which go test shows (the -v skip messages it
// does not). With AGENT_HARNESS_REQUIRE_INTEROP=1, as .ci/run sets it,
// the same tests fail.
func TestInteropSkipsSayWhatAndHow(t *testing.T) {
	t.Parallel()
	missing := missingNPM
	if _, err := exec.LookPath("node"); err != nil {
		missing = missingNode
	}
	run := func(require bool) (string, int) {
		env := []string{nodeModulesEnv + "=" + t.TempDir()}
		if require {
			env = append(env, requireInteropEnv+"=1")
		}
		return runSelf(t, "^(TestCampaignTypeScriptSDKAgent|TestInspectorCLIStartsTheProxyWithoutDashes)$",
			[]string{requireInteropEnv, nodeModulesEnv}, env)
	}

	out, code := run(false)
	want := "internal/e2e: skipped 2 interop tests: " + missing + "\n"
	if code != 0 || strings.Count(out, want) != 1 || strings.Count(out, "skipped") != 1 {
		t.Errorf("fresh clone: exit %d, output:\n%s\nwant exit 0 and the one line %q", code, out, want)
	}

	out, code = run(true)
	if code != 1 || !strings.Contains(out, "--- FAIL: TestCampaignTypeScriptSDKAgent") ||
		!strings.Contains(out, "interop test not run: "+missing+"; "+requireInteropEnv+"=1 requires it") ||
		strings.Contains(out, "internal/e2e: skipped") {
		t.Errorf("with %s=1: exit %d, output:\n%s\nwant exit 1 and the tests failed", requireInteropEnv, code, out)
	}
}

// TestMatrixSubsetsSayWhatAndHow runs TestLLMAgentMatrix of this test
// binary with no cell selected (-test.run …/^$: the matrix picks its cells,
// none runs) and no terminal: without AGENT_HARNESS_LLM_MATRIX the binary
// prints one line saying how many of the cells a plain go test runs and
// how to run all; with AGENT_HARNESS_LLM_MATRIX=full (.ci/run) it prints
// none.
func TestMatrixSubsetsSayWhatAndHow(t *testing.T) {
	t.Parallel()
	run := func(full bool) (string, int) {
		var env []string
		if full {
			env = []string{llmMatrixEnv + "=full"}
		}
		return runSelf(t, "^TestLLMAgentMatrix$/^$", []string{llmMatrixEnv}, env)
	}
	out, code := run(false)
	want := "internal/e2e: default subsets: TestLLMAgentMatrix ran 24 of its 48 cells (" + llmMatrixEnv + "=full runs all)\n"
	if code != 0 || strings.Count(out, want) != 1 {
		t.Errorf("default: exit %d, output:\n%s\nwant exit 0 and the one line %q", code, out, want)
	}
	out, code = run(true)
	if code != 0 || strings.Contains(out, "default subsets") {
		t.Errorf("with %s=full: exit %d, output:\n%s\nwant exit 0 and no subset line", llmMatrixEnv, code, out)
	}
}

// runSelf runs the tests matching pattern in this test binary again, in a
// new session (no controlling terminal), with the environment less the
// variables named in drop, plus add; it returns the combined output and
// the exit code.
func runSelf(t *testing.T, pattern string, drop, add []string) (string, int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run="+pattern, "-test.count=1")
	for _, kv := range os.Environ() {
		if !slices.ContainsFunc(drop, func(name string) bool { return strings.HasPrefix(kv, name+"=") }) {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, add...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return out.String(), cmd.ProcessState.ExitCode()
}
