package e2e

import (
	"bytes"
	"os"
	"os/exec"
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
	missing := missingNPM
	if _, err := exec.LookPath("node"); err != nil {
		missing = missingNode
	}
	run := func(require bool) (string, int) {
		cmd := exec.Command(os.Args[0], "-test.run=^(TestCampaignTypeScriptSDKAgent|TestInspectorCLIStartsTheProxyWithoutDashes)$", "-test.count=1")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, requireInteropEnv+"=") && !strings.HasPrefix(kv, nodeModulesEnv+"=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, nodeModulesEnv+"="+t.TempDir())
		if require {
			cmd.Env = append(cmd.Env, requireInteropEnv+"=1")
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return out.String(), cmd.ProcessState.ExitCode()
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
	run := func(full bool) (string, int) {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLLMAgentMatrix$/^$", "-test.count=1")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, llmMatrixEnv+"=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		if full {
			cmd.Env = append(cmd.Env, llmMatrixEnv+"=full")
		}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		return out.String(), cmd.ProcessState.ExitCode()
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
