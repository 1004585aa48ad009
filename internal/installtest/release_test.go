package installtest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoRoot is the checkout: two levels above this package.
func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// goModLines returns the directive lines of a go.mod or go.work file with
// comments removed and blocks ("require (", …) flattened: "require X v1".
func goModLines(t *testing.T, path string) []string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	block := ""
	for line := range strings.SplitSeq(string(b), "\n") {
		if i := strings.Index(line, "//"); i >= 0 {
			line = line[:i]
		}
		line = strings.TrimSpace(line)
		switch {
		case line == "":
		case strings.HasSuffix(line, "("):
			block = strings.TrimSpace(strings.TrimSuffix(line, "("))
		case line == ")":
			block = ""
		case block != "":
			out = append(out, block+" "+line)
		default:
			out = append(out, line)
		}
	}
	return out
}

// sdkRequirement is the SDK version the root go.mod requires.
func sdkRequirement(t *testing.T, root string) string {
	t.Helper()
	for _, l := range goModLines(t, filepath.Join(root, "go.mod")) {
		if f := strings.Fields(l); len(f) == 3 && f[0] == "require" && f[1] == sdkModule {
			return f[2]
		}
	}
	t.Fatalf("go.mod does not require %s", sdkModule)
	return ""
}

// TestReleasedGoMod: the root go.mod is what `go install …@VERSION`
// accepts — no replace or exclude directive — and requires the SDK at a
// release version (vX.Y.Z, the tag sdk/vX.Y.Z); the committed go.work
// builds both modules of the checkout and maps exactly that version to
// ./sdk, so development never needs the version to be published.
func TestReleasedGoMod(t *testing.T) {
	root := repoRoot(t)
	for _, l := range goModLines(t, filepath.Join(root, "go.mod")) {
		if strings.HasPrefix(l, "replace ") || strings.HasPrefix(l, "exclude ") {
			t.Errorf("go.mod has %q: go install %s/cmd/agent-harness@VERSION refuses a module with replace or exclude directives", l, rootModule)
		}
	}
	v := sdkRequirement(t, root)
	if !releaseVersion(v) {
		t.Errorf("go.mod requires %s %s, want a release version vX.Y.Z (tagged sdk/vX.Y.Z)", sdkModule, v)
	}
	work := goModLines(t, filepath.Join(root, "go.work"))
	for _, want := range []string{"use .", "use ./sdk", "replace " + sdkModule + " " + v + " => ./sdk"} {
		found := false
		for _, l := range work {
			found = found || strings.Join(strings.Fields(l), " ") == want
		}
		if !found {
			t.Errorf("go.work lacks %q (it must follow go.mod's requirement %s)", want, v)
		}
	}
}

// releaseVersion reports whether v is vX.Y.Z with no pre-release or build
// suffix.
func releaseVersion(v string) bool {
	parts := strings.Split(strings.TrimPrefix(v, "v"), ".")
	if !strings.HasPrefix(v, "v") || len(parts) != 3 {
		return false
	}
	for _, p := range parts {
		if p == "" || strings.Trim(p, "0123456789") != "" || len(p) > 1 && p[0] == '0' {
			return false
		}
	}
	return true
}
