package e2e

import (
	"os"
	"path/filepath"
	"testing"
)

// TestOutputParentDirectories: --report-file, --trace and campaign --out
// create their missing parent directories (README's first proxy example
// writes out/report.json into a fresh clone); a file in the way is named
// in one plain line, exit 2.
func TestOutputParentDirectories(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	dir := t.TempDir()
	bin := built(t, "agent-harness")
	if err := os.WriteFile(filepath.Join(dir, "notes"), []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// The agent closes stdin at once: NOT_TESTED, exit 0, both files written.
	_, stderr, code := runBuilt(t, dir, nil, "proxy", "--scenario", "F1", "--audit-tools", "off",
		"--report-file", "out/report.json", "--trace", "out/traces/run.trace", "--", bin, "sample-server")
	if code != exitOK {
		t.Fatalf("proxy into missing directories: exit %d, stderr:\n%s", code, stderr)
	}
	for _, f := range []string{"out/report.json", "out/traces/run.trace"} {
		if fi, err := os.Stat(filepath.Join(dir, f)); err != nil || fi.Size() == 0 {
			t.Errorf("%s: %v", f, err)
		}
	}

	for _, tt := range []struct {
		name string
		args []string
		want string
	}{
		{"report file under a file", []string{"proxy", "--scenario", "F1", "--report-file", "notes/run/report.json", "--", bin, "sample-server"},
			"[agent-harness] proxy: flag --report-file: checking report file notes/run/report.json: notes is a file, not a directory\n"},
		{"trace under a file", []string{"proxy", "--scenario", "F1", "--trace", "notes/run.trace", "--", bin, "sample-server"},
			"[agent-harness] proxy: flag --trace: checking report file notes/run.trace: notes is a file, not a directory\n"},
		{"campaign out under a file", []string{"campaign", "--runs", "1", "--scenarios", "F1", "--out", "notes/c", "--upstream-command", bin, "--upstream-arg", "sample-server", "--", bin, "agent"},
			"[agent-harness] campaign: flag --out: " + filepath.Join(dir, "notes") + " is a file, not a directory\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stdout, stderr, code := runBuilt(t, dir, nil, tt.args...)
			if code != exitUsage || stderr != tt.want || stdout != "" {
				t.Errorf("exit %d, stdout %q, stderr:\n%s\nwant exit %d and stderr:\n%s", code, stdout, stderr, exitUsage, tt.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "notes")); string(b) != "mine\n" {
		t.Errorf("notes changed: %q", b)
	}

	// campaign --out a/b/c with no a/: the directory and plan.json are
	// made before any run starts (the agent exits at once; the gate fails).
	runBuilt(t, dir, nil, "campaign", "--runs", "1", "--scenarios", "F1", "--quiet", "--out", "camp/a/b",
		"--upstream-command", bin, "--upstream-arg", "sample-server", "--", "/bin/true")
	if _, err := os.Stat(filepath.Join(dir, "camp", "a", "b", "plan.json")); err != nil {
		t.Errorf("campaign --out in missing directories: %v", err)
	}
}
