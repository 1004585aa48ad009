package e2e

// End-to-end tests of plugin authoring outside this repository (behaviour
// §12.5): a plugin module of its own, built with the standard toolchain
// against the SDK of this checkout through a replace line, offline
// (GOPROXY=off: the SDK has no requirements), then loaded by the built
// binary.

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// authorEnv is the environment of the go commands a plugin author runs:
// no network, no workspace, the local toolchain, and no flags inherited
// from the test's own go command.
var authorEnv = []string{"GOPROXY=off", "GOWORK=off", "GOTOOLCHAIN=local", "GOFLAGS=-mod=readonly", "CGO_ENABLED=0"}

// authorRun runs name args in dir with authorEnv (plus env) and returns
// stdout; it fails the test with the combined output on error.
func authorRun(t *testing.T, dir string, env []string, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), authorEnv...), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s (in %s): %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// buildAuthorWasm builds the plugin module in dir with the command the
// README and the skeleton's README give.
func buildAuthorWasm(t *testing.T, dir, out string) {
	t.Helper()
	authorRun(t, dir, []string{"GOOS=wasip1", "GOARCH=wasm"}, "go", "build", "-buildmode=c-shared", "-o", out, ".")
}

// inspectJSON runs `agent-harness plugin inspect --json` on path with the
// shared compilation cache (which also warms it for later proxies) and
// returns the manifest.
func inspectJSON(t *testing.T, path string) (name string, hooks, faults []string) {
	t.Helper()
	out := authorRun(t, filepath.Dir(path), nil, inspectorBinary(t), "plugin", "inspect", "--json", "--plugin-cache-dir", pluginCache(), path)
	var r struct {
		Manifest struct {
			Name   string   `json:"name"`
			Hooks  []string `json:"hooks"`
			Faults []string `json:"faults"`
		} `json:"manifest"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("plugin inspect --json: %v\n%s", err, out)
	}
	return r.Manifest.Name, r.Manifest.Hooks, r.Manifest.Faults
}

// moduleGraph is `go list -m all` in dir: the modules a build there
// could use.
func moduleGraph(t *testing.T, dir string) []string {
	t.Helper()
	return strings.Fields(authorRun(t, dir, nil, "go", "list", "-m", "-f", "{{.Path}}", "all"))
}

func skipWithoutGo(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("builds WebAssembly modules and runs processes")
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to build plugins with")
	}
}

// TestPluginNewSkeletonsBuild: for each hook, `agent-harness plugin new`
// writes a module whose own tests pass, which builds to WebAssembly with
// the standard toolchain, and which `plugin inspect` accepts with that
// hook; its module graph holds the SDK alone.
func TestPluginNewSkeletonsBuild(t *testing.T) {
	t.Parallel() // separate processes and files
	skipWithoutGo(t)
	sdkDir := filepath.Join(repoRoot(t), "sdk")
	bin := built(t, "agent-harness")
	tests := []struct {
		hook, name string
		hooks      []string
		faults     []string
	}{
		{"equivalence", "sk-equiv", []string{"equiv_key"}, nil},
		{"classifier", "sk-class", []string{"classify"}, nil},
		{"fault", "sk-fault", []string{"fault"}, []string{"unavailable_once"}},
	}
	for _, tt := range tests {
		t.Run(tt.hook, func(t *testing.T) {
			t.Parallel()
			work := t.TempDir()
			authorRun(t, work, nil, bin, "plugin", "new", tt.name, "--hook", tt.hook, "--sdk", sdkDir)
			dir := filepath.Join(work, tt.name)
			out := authorRun(t, dir, nil, "go", "test", "-count=1", "-v", "./...")
			if !strings.Contains(out, "--- PASS: TestHandle") || strings.Contains(out, "--- SKIP") {
				t.Errorf("the skeleton's go test did not run its tests:\n%s", out)
			}
			authorRun(t, dir, nil, "go", "vet", "./...")
			if got, want := moduleGraph(t, dir), []string{"example.com/" + tt.name, "github.com/cuonztech/agent-harness/sdk"}; !slices.Equal(got, want) {
				t.Errorf("module graph %v, want %v", got, want)
			}
			wasm := filepath.Join(dir, tt.name+".wasm")
			buildAuthorWasm(t, dir, wasm)
			name, hooks, faults := inspectJSON(t, wasm)
			if name != tt.name || !slices.Equal(hooks, tt.hooks) || !slices.Equal(faults, tt.faults) {
				t.Errorf("inspect: name %q hooks %v faults %v, want %q %v %v", name, hooks, faults, tt.name, tt.hooks, tt.faults)
			}
			// The README's next step: the skeleton passes the conformance checks.
			if code, stdout, stderr := runPluginCheck(t, wasm); code != 0 || strings.Contains(stdout, "FAIL") {
				t.Errorf("plugin check: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
			}
		})
	}
}

// codeBlocks returns the fenced code blocks of text with the given info
// string.
func codeBlocks(text, lang string) []string {
	re := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}

// TestPluginOutOfTreeREADME follows docs/plugins.md "Writing a plugin in
// its own module" (once in the README) in an empty directory: go mod init, go get of the SDK (resolved
// to this checkout by a replace line, the only step the README does not
// show), the README's main.go, the WebAssembly build, plugin inspect, and a
// proxy run in which the plugin classifies a tool and so decides where F1
// fires.
func TestPluginOutOfTreeREADME(t *testing.T) {
	t.Parallel() // separate processes and files
	skipWithoutGo(t)
	section := docSection(t, "docs/plugins.md", "## Writing a plugin in its own module")
	sh, src := codeBlocks(section, "sh"), codeBlocks(section, "go")
	if len(sh) != 1 || len(src) != 1 {
		t.Fatalf("want one sh and one go block in the section, got %d and %d", len(sh), len(src))
	}
	for _, step := range []string{
		"go mod init example.com/myplugin\n",
		"go get github.com/cuonztech/agent-harness/sdk\n",
		"GOOS=wasip1 GOARCH=wasm go build -buildmode=c-shared -o my.wasm .",
		"agent-harness plugin inspect my.wasm",
		"agent-harness proxy --plugin /abs/path/to/myplugin/my.wasm",
	} {
		if !strings.Contains(sh[0], step) {
			t.Errorf("the README flow lacks %q:\n%s", step, sh[0])
		}
	}
	dir := filepath.Join(t.TempDir(), "myplugin")
	os.Mkdir(dir, 0o755)
	authorRun(t, dir, nil, "go", "mod", "init", "example.com/myplugin")
	authorRun(t, dir, nil, "go", "mod", "edit", "-replace", "github.com/cuonztech/agent-harness/sdk="+filepath.Join(repoRoot(t), "sdk"))
	authorRun(t, dir, nil, "go", "get", "github.com/cuonztech/agent-harness/sdk")
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(src[0]), 0o644); err != nil {
		t.Fatal(err)
	}
	authorRun(t, dir, nil, "go", "vet", ".")
	if got := authorRun(t, dir, nil, "gofmt", "-l", "."); got != "" {
		t.Errorf("the README's main.go is not gofmt-formatted")
	}
	if got, want := moduleGraph(t, dir), []string{"example.com/myplugin", "github.com/cuonztech/agent-harness/sdk"}; !slices.Equal(got, want) {
		t.Errorf("module graph %v, want %v (the SDK alone)", got, want)
	}
	wasm := filepath.Join(dir, "my.wasm")
	buildAuthorWasm(t, dir, wasm)
	if name, hooks, _ := inspectJSON(t, wasm); name != "myplugin" || !slices.Equal(hooks, []string{"classify"}) {
		t.Fatalf("inspect: name %q hooks %v, want myplugin [classify]", name, hooks)
	}

	p := startSession(t, "--upstream-arg=-hotel-tools", "--scenario", "F1", "--audit-tools", "off",
		"--plugin", wasm, "--plugin-cache-dir", pluginCache(), pluginTimeout)
	p.stderr.waitFor(t, "Key field recognised")
	const line = "[agent-harness]   write        check_in_guest  (checks a guest in (plugin myplugin))"
	if !slices.Contains(strings.Split(p.stderr.String(), "\n"), line) {
		t.Errorf("startup table lacks %q:\n%s", line, p.stderr)
	}
	// Without the plugin check_in_guest is a read (TestPluginVerbsEndToEnd):
	// F1 now fires on it.
	if got := p.call("check_in_guest", `{"guest":"Ada","room":"12"}`); got.text() != timeoutText {
		t.Errorf("check_in_guest answered %q, want the F1 timeout", got.text())
	}
	r := p.finishReport()
	for _, c := range r.ToolClassification {
		if c.Name == "check_in_guest" && c.Class != "write" {
			t.Errorf("toolClassification check_in_guest=%s, want write", c.Class)
		}
	}
	if got := p.readPluginFile().pluginStatus(); !slices.Equal(got, []string{"myplugin 0.1.0 ok"}) {
		t.Errorf("report plugins %v, want [myplugin 0.1.0 ok]", got)
	}
}
