package e2e

// End-to-end tests of `agent-harness plugin check` (issue 18 item 7): the
// built binary runs the conformance kit on every example plugin and on
// deliberately broken modules.

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

// runPluginCheck runs `plugin check` on path with the shared compilation
// cache and returns its exit status, stdout and stderr.
func runPluginCheck(t *testing.T, path string, flags ...string) (int, string, string) {
	t.Helper()
	args := append([]string{"plugin", "check", "--plugin-cache-dir", pluginCache()}, flags...)
	cmd := exec.Command(inspectorBinary(t), append(args, path)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatal(err)
	}
	return exitStatus(cmd.ProcessState), stdout.String(), stderr.String()
}

// TestPluginCheckExamples: every example plugin under plugins/ passes
// every check that applies to its hooks, one "ok" line each, exit 0.
func TestPluginCheckExamples(t *testing.T) {
	t.Parallel()
	minimalPath := filepath.Join(t.TempDir(), "minimal.wasm")
	if err := os.WriteFile(minimalPath, minimal.Wasm, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		pkg   string
		hooks []string
	}{
		{"./plugins/dates", []string{"equiv_key"}},
		{"./plugins/verbs", []string{"classify"}},
		{"./plugins/faultpack", []string{"fault"}},
		{"./plugins/bookingstate", []string{"state"}},
		{"minimal", []string{"classify", "equiv_key", "fault"}},
	} {
		t.Run(tt.pkg, func(t *testing.T) {
			path := minimalPath
			if tt.pkg != "minimal" {
				path = buildPlugin(t, tt.pkg)
			}
			code, stdout, stderr := runPluginCheck(t, path)
			want := "ok   load\n"
			for _, name := range append(tt.hooks, "many calls", "concurrent calls", "stays enabled") {
				want += "ok   " + name + "\n"
			}
			if code != 0 || stdout != want {
				t.Errorf("exit %d, stdout:\n%s\nwant exit 0, stdout:\n%s\nstderr:\n%s", code, stdout, want, stderr)
			}
		})
	}
}

// brokenModule is minimal's module with one change: the equiv_key hook
// traps, or ah_alloc is missing.
func brokenModule(trapEquivKey, withAlloc bool) []byte {
	const manifest = `{"abi":1,"name":"broken","version":"1","hooks":["classify","equiv_key"]}`
	var m Module
	m.Memory(20, -1, true) // 1.25 MiB: ah_alloc's fixed 4096 holds the 1 MiB input buffer
	m.Data(16, []byte(manifest))
	ptrLen, i64 := []ValType{I32, I32}, []ValType{I64}
	m.ExportFunc("ah_abi_v1", m.Func(nil, nil, nil))
	if withAlloc {
		m.ExportFunc("ah_alloc", m.Func([]ValType{I32}, []ValType{I32}, nil, I32Const(4096)))
	}
	m.ExportFunc("ah_free", m.Func([]ValType{I32}, nil, nil))
	m.ExportFunc("ah_manifest", m.Func(nil, i64, nil, PackPtrLen(16, uint32(len(manifest)))))
	m.ExportFunc("ah_classify", m.Func(ptrLen, i64, nil, I64Const(0)))
	equiv := I64Const(0)
	if trapEquivKey {
		equiv = Unreachable
	}
	m.ExportFunc("ah_equiv_key", m.Func(ptrLen, i64, nil, equiv))
	return m.Bytes()
}

// TestPluginCheckBroken: a module that breaks the ABI fails the check
// that found it, named on its FAIL line, with exit 1; a file that cannot
// be read is a usage error (exit 2).
func TestPluginCheckBroken(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tt := range []struct {
		name, path string
		code       int
		lines      []string // stdout lines, in order; a line ending in "*" is a prefix
		stderr     string
	}{
		{name: "equiv_key traps", path: write("trap.wasm", brokenModule(true, true)), code: 1, lines: []string{
			"ok   load", "ok   classify", "FAIL equiv_key: plugin failure: equiv_key create_booking: ah_equiv_key: trap: wasm error: unreachable (and *",
			"ok   many calls", "ok   concurrent calls", // a disabled plugin's hooks no longer run
			"FAIL stays enabled: disabled after 5 failed calls, first: equiv_key create_booking: ah_equiv_key: trap: wasm error: unreachable"}},
		{name: "no ah_alloc", path: write("noalloc.wasm", brokenModule(false, false)), code: 1, lines: []string{
			"FAIL load: loading plugin " + filepath.Join(dir, "noalloc.wasm") + ": missing export ah_alloc"}},
		{name: "not wasm", path: write("text.wasm", []byte("hello\n")), code: 1, lines: []string{
			"FAIL load: loading plugin " + filepath.Join(dir, "text.wasm") + ": *"}},
		{name: "missing file", path: filepath.Join(dir, "absent.wasm"), code: 2,
			stderr: "[agent-harness] plugin check: reading " + filepath.Join(dir, "absent.wasm") + ": open " + filepath.Join(dir, "absent.wasm") + ": no such file or directory\n"},
		{name: "directory", path: dir, code: 2, stderr: "[agent-harness] plugin check: reading " + dir + ": is a directory\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := runPluginCheck(t, tt.path)
			got := strings.Split(strings.TrimSuffix(stdout, "\n"), "\n")
			if stdout == "" {
				got = nil
			}
			ok := code == tt.code && len(got) == len(tt.lines) && (tt.stderr == "" || stderr == tt.stderr)
			for i := 0; ok && i < len(got); i++ {
				want := tt.lines[i]
				if p, prefix := strings.CutSuffix(want, "*"); prefix {
					ok = strings.HasPrefix(got[i], p)
				} else {
					ok = got[i] == want
				}
			}
			if !ok {
				t.Errorf("exit %d, stdout:\n%s\nstderr:\n%s\nwant exit %d, lines %q, stderr %q", code, stdout, stderr, tt.code, tt.lines, tt.stderr)
			}
		})
	}
}

// TestPluginCheckHelpAndVersion: --help prints the usage with the line
// format and exit statuses, --version the version, both exit 0; a bad
// flag is exit 2.
func TestPluginCheckHelpAndVersion(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runBuilt(t, dir, nil, "plugin", "check", "--help")
	if code != exitOK || !strings.HasPrefix(stdout, "Usage: agent-harness plugin check [flags] FILE.wasm\n") ||
		!strings.Contains(stdout, "  FAIL NAME: REASON\n") || stderr != "" {
		t.Errorf("--help: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = runBuilt(t, dir, nil, "plugin", "check", "x.wasm", "--version")
	if code != exitOK || !strings.HasPrefix(stdout, "agent-harness ") || stderr != "" {
		t.Errorf("--version: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	stdout, stderr, code = runBuilt(t, dir, nil, "plugin", "check", "--config", "{", "x.wasm")
	if code != 2 || stdout != "" || stderr != "[agent-harness] plugin check: invalid --config: not valid JSON\n" {
		t.Errorf("--config {: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}
