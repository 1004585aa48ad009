// Package releasetest checks the release configuration (docs/ci.md
// "Making a release"): .goreleaser.yaml, the Dockerfile and the release
// workflow agree on the targets, the environment, the flags and the
// ldflags; the ldflags' -X targets exist; and — with
// AGENT_HARNESS_RELEASE_TEST=1, since it compiles the binary six times —
// every target builds with them and a stamped binary's --version names the
// release.
package releasetest

import (
	"debug/buildinfo"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/report"
)

// envRun turns the cross-builds on (.ci/run and the release workflow set it).
const envRun = "AGENT_HARNESS_RELEASE_TEST"

// The release build, as .goreleaser.yaml states it.
var (
	goos    = []string{"linux", "darwin", "windows"}
	goarch  = []string{"amd64", "arm64"}
	env     = []string{"CGO_ENABLED=0"}
	flags   = []string{"-trimpath"}
	ldflags = "-s -w -X main.releaseVersion={{ .Tag }} -X main.releaseRevision={{ .FullCommit }} -X main.releaseTime={{ .CommitDate }}"
)

// stampVars are the package main variables the ldflags set (the linker
// ignores an -X whose variable does not exist, so a rename would silently
// unstamp the release).
var stampVars = []string{"releaseVersion", "releaseRevision", "releaseTime"}

func repoRoot(t *testing.T) string {
	t.Helper()
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

func readFile(t *testing.T, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// yamlList returns the items of the first block list under key (a line
// "key:" followed by "- item" lines indented deeper), comments removed and
// quotes kept as written. Enough for the few lists checked here; the file
// has no YAML dependency to parse it with.
func yamlList(text, key string) []string {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.TrimSpace(l) != key+":" {
			continue
		}
		indent := len(l) - len(strings.TrimLeft(l, " "))
		var items []string
		for _, m := range lines[i+1:] {
			trimmed := strings.TrimSpace(m)
			if trimmed == "" || strings.HasPrefix(trimmed, "#") {
				continue
			}
			if len(m)-len(strings.TrimLeft(m, " ")) <= indent || !strings.HasPrefix(trimmed, "- ") {
				break
			}
			items = append(items, strings.TrimSpace(strings.TrimPrefix(trimmed, "- ")))
		}
		return items
	}
	return nil
}

// dockerRuns returns the commands of the Dockerfile's RUN instructions,
// continuation lines joined and --mount options left out.
func dockerRuns(df string) []string {
	joined := regexp.MustCompile(`\\\n\s*`).ReplaceAllString(df, " ")
	var out []string
	for _, l := range strings.Split(joined, "\n") {
		cmd, ok := strings.CutPrefix(l, "RUN ")
		if !ok {
			continue
		}
		for strings.HasPrefix(cmd, "--mount=") {
			_, cmd, _ = strings.Cut(cmd, " ")
		}
		out = append(out, strings.TrimSpace(cmd))
	}
	return out
}

// TestReleaseConfig: the three release files say the same thing, and the
// ldflags reach variables that exist.
func TestReleaseConfig(t *testing.T) {
	gr := readFile(t, ".goreleaser.yaml")
	for _, c := range []struct {
		key  string
		want []string
	}{
		{"goos", goos}, {"goarch", goarch}, {"env", env}, {"flags", flags}, {"ldflags", []string{ldflags}},
	} {
		if got := yamlList(gr, c.key); !slices.Equal(got, c.want) {
			t.Errorf(".goreleaser.yaml %s: %q, want %q", c.key, got, c.want)
		}
	}
	for _, line := range []string{"main: ./cmd/agent-harness", "binary: agent-harness", "algorithm: sha256", "version: 2"} {
		if !strings.Contains(gr, line) {
			t.Errorf(".goreleaser.yaml lacks %q", line)
		}
	}

	// The Dockerfile's build stage: the same environment, flags and
	// ldflags, the template fields taken from build arguments.
	df := readFile(t, "Dockerfile")
	dockerLd := strings.NewReplacer("{{ .Tag }}", "$VERSION", "{{ .FullCommit }}", "$REVISION", "{{ .CommitDate }}", "$TIME").Replace(ldflags)
	wantRun := strings.Join(env, " ") + " GOOS=$TARGETOS GOARCH=$TARGETARCH go build " + strings.Join(flags, " ") +
		` -ldflags="` + dockerLd + `" -o /out/agent-harness ./cmd/agent-harness`
	if !slices.Contains(dockerRuns(df), wantRun) {
		t.Errorf("the Dockerfile's build stage lacks the release build\nRUN %s\nit has %q", wantRun, dockerRuns(df))
	}
	for _, line := range []string{"FROM scratch", "USER 65532:65532", `ENTRYPOINT ["/usr/local/bin/agent-harness"]`, "ARG VERSION", "ARG REVISION", "ARG TIME"} {
		if !strings.Contains(df, line) {
			t.Errorf("the Dockerfile lacks %q", line)
		}
	}
	if i, j := strings.LastIndex(df, "\nFROM "), strings.Index(df, "\nUSER 65532:65532"); i < 0 || j < i {
		t.Errorf("the final stage does not switch to the non-root user")
	}

	wf := readFile(t, ".github/workflows/release.yml")
	for _, line := range []string{`tags: ["v*"]`, "GORELEASER_CURRENT_TAG: ${{ github.ref_name }}", envRun + "=1", "-run TestReleaseBuilds ./internal/releasetest",
		"VERSION=${{ github.ref_name }}", "REVISION=${{ github.sha }}"} {
		if !strings.Contains(wf, line) {
			t.Errorf("release.yml lacks %q", line)
		}
	}

	// The -X targets: string variables of package main.
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, filepath.Join(repoRoot(t), "cmd", "agent-harness", "version.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "string" && len(vs.Values) == 0 {
				for _, name := range vs.Names {
					found[name.Name] = true
				}
			}
		}
		return true
	})
	for _, v := range stampVars {
		if !found[v] {
			t.Errorf("cmd/agent-harness/version.go declares no uninitialised string variable %s for -X main.%s", v, v)
		}
		if !strings.Contains(ldflags, "-X main."+v+"=") {
			t.Errorf("the ldflags do not set main.%s", v)
		}
	}
}

// TestReleaseBuilds cross-builds the binary for every release target with
// the release's environment, flags and ldflags (as GoReleaser does, from
// the checkout), checks what each binary's build information records, and
// runs the one for this machine: its --version names the stamped tag,
// commit and time.
func TestReleaseBuilds(t *testing.T) {
	if os.Getenv(envRun) != "1" {
		t.Skipf("release cross-builds not run: set %s=1 (.ci/run and the release workflow do); it compiles the binary %d times", envRun, len(goos)*len(goarch))
	}
	if _, err := exec.LookPath("go"); err != nil {
		t.Fatal("the go command is needed")
	}
	const (
		tag    = "v9.8.7"
		commit = "0123456789abcdef0123456789abcdef01234567"
		when   = "2026-01-02T03:04:05Z"
	)
	ld := strings.NewReplacer("{{ .Tag }}", tag, "{{ .FullCommit }}", commit, "{{ .CommitDate }}", when).Replace(ldflags)
	out := t.TempDir()
	for _, os_ := range goos {
		for _, arch := range goarch {
			name := "agent-harness_" + os_ + "_" + arch
			if os_ == "windows" {
				name += ".exe"
			}
			bin := filepath.Join(out, name)
			args := append(append([]string{"build"}, flags...), "-ldflags", ld, "-o", bin, "./cmd/agent-harness")
			cmd := exec.Command("go", args...)
			cmd.Dir = repoRoot(t)
			cmd.Env = append(append(os.Environ(), env...), "GOOS="+os_, "GOARCH="+arch)
			began := time.Now()
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("GOOS=%s GOARCH=%s go build: %v\n%s", os_, arch, err, b)
				continue
			}
			t.Logf("%s/%s built in %v", os_, arch, time.Since(began).Round(time.Millisecond))
			info, err := buildinfo.ReadFile(bin)
			if err != nil {
				t.Errorf("%s: %v", name, err)
				continue
			}
			settings := map[string]string{}
			for _, s := range info.Settings {
				settings[s.Key] = s.Value
			}
			for k, v := range map[string]string{"CGO_ENABLED": "0", "-trimpath": "true", "GOOS": os_, "GOARCH": arch} {
				if settings[k] != v {
					t.Errorf("%s: build setting %s = %q, want %q", name, k, settings[k], v)
				}
			}
			if os_ != runtime.GOOS || arch != runtime.GOARCH {
				continue
			}
			got, err := exec.Command(bin, "--version").Output()
			if err != nil {
				t.Errorf("%s --version: %v", name, err)
				continue
			}
			want := "agent-harness " + report.HarnessVersion + " (module " + tag + ", revision " + commit[:12] + ", " + when + ")\n"
			if string(got) != want {
				t.Errorf("%s --version = %q, want %q", name, got, want)
			}
		}
	}
}
