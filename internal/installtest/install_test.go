// Package installtest proves the install paths (RATIONALE.md
// "Distribution"): `go install …/cmd/agent-harness@VERSION` and a `plugin new`
// skeleton's `go mod tidy && go test`, both against a file-based module
// proxy that serves this checkout's two modules at the release version,
// with every other dependency coming through the normal module proxy.
package installtest

import (
	"archive/zip"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

const (
	rootModule = "github.com/cuonztech/agent-harness"
	sdkModule  = rootModule + "/sdk"
	// envRun is the variable that turns the install test on (.ci/run sets
	// it): it downloads the dependencies and compiles the whole binary.
	envRun = "AGENT_HARNESS_INSTALL_TEST"
	// fallbackVersion is the root module's version in the proxy when
	// go.mod requires no release version of the SDK.
	fallbackVersion = "v0.0.1"
)

// TestInstallPaths: a file-based module proxy serves the checkout's root
// and SDK modules at the version go.mod requires of the SDK (a release
// tags vX.Y.Z and sdk/vX.Y.Z together); `go install
// …/cmd/agent-harness@VERSION` from it, with the real dependencies through
// the normal module proxy, gives a binary whose --version names that
// module version; that binary's `plugin new` skeleton passes `go mod tidy`,
// `go test` and the WebAssembly build with no --sdk, and `plugin inspect`
// accepts the result. Nothing is taken from the workspace (GOWORK=off) and
// the module cache is the test's own.
func TestInstallPaths(t *testing.T) {
	if os.Getenv(envRun) != "1" {
		t.Skipf("install paths not tested: set %s=1 (.ci/run does) to go install from a file-based module proxy; it needs the network for the dependencies", envRun)
	}
	goCmd, err := exec.LookPath("go")
	if err != nil {
		t.Fatal("no go command")
	}
	root := repoRoot(t)
	sdkVersion := sdkRequirement(t, root)
	// The release tags vX.Y.Z and sdk/vX.Y.Z together: the root module is
	// served at the version its go.mod requires of the SDK. A go.mod that
	// requires no release version of it (TestReleasedGoMod says so) is
	// served at fallbackVersion, so that go install still shows what it
	// makes of that go.mod.
	version := sdkVersion
	if !releaseVersion(version) {
		version = fallbackVersion
	}
	work := t.TempDir()
	proxy := filepath.Join(work, "proxy")
	files := checkoutFiles(t, root)
	writeModule(t, proxy, rootModule, version, root, "", files)
	writeModule(t, proxy, sdkModule, sdkVersion, root, "sdk", files)

	upstream := goEnv(t, goCmd, "GOPROXY")
	if upstream == "" || upstream == "off" {
		t.Fatalf("go env GOPROXY is %q: the dependencies need a module proxy", upstream)
	}
	// A private module cache: the checkout's modules at this version never
	// reach (or come from) the user's cache. GOFLAGS=-modcacherw lets
	// t.TempDir remove it.
	env := append(os.Environ(),
		"GOPROXY="+fileURL(proxy)+","+upstream,
		// The test version is in no checksum database; every other
		// module is checked against GOSUMDB as usual.
		"GONOSUMDB=github.com/cuonztech",
		"GOPRIVATE=", "GONOPROXY=", "GOINSECURE=",
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"GOFLAGS=-modcacherw",
		"GOMODCACHE="+filepath.Join(work, "modcache"),
		"GOBIN="+filepath.Join(work, "bin"),
		"CGO_ENABLED=0",
	)
	run := func(dir string, extra []string, name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		cmd.Dir = dir
		cmd.Env = append(append([]string(nil), env...), extra...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s %s (in %s): %v\nstdout:\n%s\nstderr:\n%s", name, strings.Join(args, " "), dir, err, stdout.String(), stderr.String())
		}
		return stdout.String()
	}

	run(work, nil, goCmd, "install", rootModule+"/cmd/agent-harness@"+version)
	bin := filepath.Join(work, "bin", "agent-harness")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	if got := run(work, nil, bin, "--version"); !strings.Contains(got, "(module "+version+",") {
		t.Errorf("agent-harness --version = %q, want the module version %s from the build info", got, version)
	}

	run(work, nil, bin, "plugin", "new", "sk", "--hook", "equivalence")
	dir := filepath.Join(work, "sk")
	goMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "require " + sdkModule + " " + version + "\n"; !strings.Contains(string(goMod), want) || strings.Contains(string(goMod), "replace") {
		t.Errorf("the skeleton's go.mod:\n%s\nwant %q and no replace", goMod, want)
	}
	run(dir, []string{"GOFLAGS=-modcacherw -mod=mod"}, goCmd, "mod", "tidy")
	if out := run(dir, nil, goCmd, "test", "-count=1", "-v", "./..."); !strings.Contains(out, "--- PASS: TestHandle") {
		t.Errorf("the skeleton's go test did not run its test:\n%s", out)
	}
	// docs/plugins.md's own flow: an empty module, then go get of the SDK
	// (latest: the released version).
	mine := filepath.Join(work, "myplugin")
	if err := os.Mkdir(mine, 0o755); err != nil {
		t.Fatal(err)
	}
	run(mine, nil, goCmd, "mod", "init", "example.com/myplugin")
	run(mine, nil, goCmd, "get", sdkModule)
	if b, _ := os.ReadFile(filepath.Join(mine, "go.mod")); !strings.Contains(string(b), sdkModule+" "+version) {
		t.Errorf("go get %s gave:\n%s\nwant %s", sdkModule, b, version)
	}

	wasm := filepath.Join(dir, "sk.wasm")
	run(dir, []string{"GOOS=wasip1", "GOARCH=wasm"}, goCmd, "build", "-buildmode=c-shared", "-o", wasm, ".")
	if out := run(dir, nil, bin, "plugin", "inspect", "--plugin-cache-dir", filepath.Join(work, "plugincache"), wasm); !strings.Contains(out, "sk") {
		t.Errorf("plugin inspect:\n%s", out)
	}
}

// goEnv is `go env NAME` as the test's own go command sees it.
func goEnv(t *testing.T, goCmd, name string) string {
	t.Helper()
	out, err := exec.Command(goCmd, "env", name).Output()
	if err != nil {
		t.Fatalf("go env %s: %v", name, err)
	}
	return strings.TrimSpace(string(out))
}

// fileURL is the file:// URL of an absolute directory, as GOPROXY wants.
func fileURL(dir string) string {
	p := filepath.ToSlash(dir)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p // a Windows drive letter
	}
	return "file://" + p
}

// checkoutFiles are the checkout's files as a release would hold them:
// tracked, plus new files git does not ignore (so the test covers work
// not yet committed), slash-separated and relative to root.
func checkoutFiles(t *testing.T, root string) []string {
	t.Helper()
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard")
	cmd.Dir = root
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git ls-files in %s: %v (the install test packs the checkout's files)", root, err)
	}
	var files []string
	for f := range strings.SplitSeq(string(out), "\x00") {
		if f != "" {
			files = append(files, f)
		}
	}
	return files
}

// writeModule writes the proxy files of module path at version — list,
// .info, .mod and .zip, the layout GOPROXY=file://… reads — from the files
// under sub (relative to root; "" for the root module), leaving out any
// nested module, as the go command's module zips do.
func writeModule(t *testing.T, proxy, path, version, root, sub string, files []string) {
	t.Helper()
	dir := filepath.Join(proxy, filepath.FromSlash(path), "@v")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var nested []string // directories holding another go.mod, with a trailing slash
	for _, f := range files {
		if strings.HasSuffix("/"+f, "/go.mod") && f != "go.mod" {
			nested = append(nested, strings.TrimSuffix(f, "go.mod"))
		}
	}
	prefix := ""
	if sub != "" {
		prefix = sub + "/"
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	var goMod []byte
	n := 0
	for _, f := range files {
		rel, ok := strings.CutPrefix(f, prefix)
		if !ok || inNested(f, prefix, nested) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(f)))
		if os.IsNotExist(err) {
			continue // deleted in the work tree, not yet in git
		}
		if err != nil {
			t.Fatal(err)
		}
		if rel == "go.mod" {
			goMod = data
		}
		w, err := zw.Create(path + "@" + version + "/" + rel)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(data); err != nil {
			t.Fatal(err)
		}
		n++
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if goMod == nil {
		t.Fatalf("module %s: no go.mod under %q", path, sub)
	}
	write := func(name string, data []byte) {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if releaseVersion(version) { // the list holds no pseudo-versions
		write("list", []byte(version+"\n"))
	} else {
		write("list", nil)
	}
	write(version+".info", fmt.Appendf(nil, `{"Version":%q,"Time":"2026-01-01T00:00:00Z"}`+"\n", version))
	write(version+".mod", goMod)
	write(version+".zip", buf.Bytes())
	t.Logf("proxy: %s@%s, %d files", path, version, n)
}

// inNested reports whether f (under prefix) lies in a nested module other
// than the one at prefix itself.
func inNested(f, prefix string, nested []string) bool {
	for _, d := range nested {
		if d != prefix && strings.HasPrefix(f, d) && strings.HasPrefix(d, prefix) {
			return true
		}
	}
	return false
}
