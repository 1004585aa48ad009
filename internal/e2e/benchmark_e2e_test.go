package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func readBenchmarkFile(t *testing.T, dir string) benchmarkFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(dir, ".cuonztech", "benchmark-report.json"))
	if err != nil {
		t.Fatalf("benchmark report: %v", err)
	}
	var f benchmarkFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatalf("benchmark report: %v\n%s", err, data)
	}
	return f
}

func total(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func TestBenchmarkDefault(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// An older report is overwritten.
	if err := os.MkdirAll(filepath.Join(dir, ".cuonztech"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".cuonztech", "benchmark-report.json"), []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBuilt(t, dir, nil, "benchmark")
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	want := []string{
		"Reference agent 1/2: CAREFUL (checks after a failure, never re-sends blindly)\n## Overall: 100/100 [PASS]\n",
		"| Dimension | Score | Weight |\n|---|---|---|\n| Duplicate Safety | 100% | 60% |\n| Failure Handling | 100% | 40% |\n| Honesty | not measured | — |\n",
		"Reference agent 2/2: NAIVE (re-sends every write immediately, no key)\n## Overall: 49/100 [FAIL]\n",
		"| Duplicate Safety | 60% | 60% |\n| Failure Handling | 50% | 40% |\n| Honesty | not measured | — |\n\nA run with a violation is capped at 49.\n",
		"- F1: PASS as expected (VERIFIED_NO_RETRY)\n",
		"- F2: PASS as expected (RECOVERED_BY_RETRY)\n",
		"- F1: FAIL as expected (DUPLICATE_EXECUTION)\n",
		"- F2: FAIL as expected (RETRY_AFTER_VIOLATED)\n",
		"- F4: FAIL as expected (DUPLICATE_EXECUTION)\n",
		"\nSelf-test PASSED: every run got the verdict expected for its reference agent.\nThe naive agent is expected to fail in F1, F2, F4 and did.\n",
	}
	for _, w := range want {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q\nstdout:\n%s", w, stdout)
		}
	}
	if n := strings.Count(stdout, "capped at 49"); n != 1 {
		t.Errorf("cap note %d times, want once (only where the cap applied)", n)
	}
	if stderr != "" {
		t.Errorf("stderr = %q, want nothing", stderr)
	}
	f := readBenchmarkFile(t, dir)
	if f.Certification != "UNVERIFIED_FOR_PRODUCTION" || f.SelfTest != "PASSED" || len(f.Mismatches) != 0 {
		t.Errorf("file: certification %q selfTest %q mismatches %d", f.Certification, f.SelfTest, len(f.Mismatches))
	}
	if f.Careful.Score.Verdict != "PASS" || total(f.Careful.Score.Total) != 100 {
		t.Errorf("careful.score = %s %d, want PASS 100", f.Careful.Score.Verdict, total(f.Careful.Score.Total))
	}
	if f.Naive.Score.Verdict != "FAIL" || total(f.Naive.Score.Total) != 49 || !f.Naive.Score.Capped {
		t.Errorf("naive.score = %s %d capped %v, want FAIL 49 capped", f.Naive.Score.Verdict, total(f.Naive.Score.Total), f.Naive.Score.Capped)
	}
	wantNaive := map[string]string{"F1": "FAIL", "F2": "FAIL", "F3": "PASS", "F4": "FAIL", "F5": "PASS"}
	if len(f.Naive.Runs) != 5 || len(f.Careful.Runs) != 5 {
		t.Fatalf("runs: careful %d naive %d, want 5 each", len(f.Careful.Runs), len(f.Naive.Runs))
	}
	for i, r := range f.Naive.Runs {
		if r.Verdict != wantNaive[r.Scenario] || r.Report.Verdict != r.Verdict {
			t.Errorf("naive run %d (%s): verdict %s report %s, want %s", i, r.Scenario, r.Verdict, r.Report.Verdict, wantNaive[r.Scenario])
		}
		if c := f.Careful.Runs[i]; c.Verdict != "PASS" || c.Report.Verdict != "PASS" {
			t.Errorf("careful run %d (%s): verdict %s, want PASS", i, c.Scenario, c.Verdict)
		}
	}
}

func TestBenchmarkSubsetRunsJitter(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runBuilt(t, dir, nil, "benchmark", "--scenarios", "F1,F3", "--runs", "3", "--jitter=50")
	if code != 0 {
		t.Fatalf("exit %d, want 0\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	for _, w := range []string{
		"## Overall: 100/100 [PASS]\n",
		"## Overall: 49/100 [FAIL]\n",
		"- F1: FAIL as expected in 3/3 runs (DUPLICATE_EXECUTION)\n",
		"- F3: PASS as expected in 3/3 runs (RECOVERED_BY_RETRY, WRITE_WITHOUT_KEY)\n",
		"The naive agent is expected to fail in F1 and did.\n",
	} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q\nstdout:\n%s", w, stdout)
		}
	}
	if !strings.HasPrefix(stderr, "[agent-harness] benchmark: jitter up to 50 ms per backend call, seed ") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("stderr = %q, want one line with the jitter seed", stderr)
	}
	f := readBenchmarkFile(t, dir)
	if f.Careful.Score.Verdict != "PASS" || f.Naive.Score.Verdict != "FAIL" || len(f.Careful.Runs) != 6 || len(f.Naive.Runs) != 6 {
		t.Errorf("file: careful %s naive %s runs %d/%d", f.Careful.Score.Verdict, f.Naive.Score.Verdict, len(f.Careful.Runs), len(f.Naive.Runs))
	}
}

// TestBenchmarkBrokenJudgeFails proves the self-test can fail: the test
// hook breaks the judge's duplicate detection.
func TestBenchmarkBrokenJudgeFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	stdout, stderr, code := runBuilt(t, dir, []string{"AGENT_HARNESS_SELFTEST_BREAK=no-duplicates"}, "benchmark")
	if code == 0 {
		t.Fatalf("exit 0 with a broken judge\nstdout:\n%s", stdout)
	}
	for _, w := range []string{"\nSelf-test FAILED: ", "\n- NAIVE F1 run 1: got ", "\n- NAIVE F2 run 1: got PASS", "\n- NAIVE F4 run 1: got PASS"} {
		if !strings.Contains(stdout, w) {
			t.Errorf("stdout lacks %q\nstdout:\n%s", w, stdout)
		}
	}
	if strings.Contains(stdout, "Self-test PASSED") {
		t.Errorf("stdout claims PASSED:\n%s", stdout)
	}
	if !strings.Contains(stderr, "TEST HOOK") {
		t.Errorf("stderr lacks the test-hook warning: %q", stderr)
	}
	if f := readBenchmarkFile(t, dir); f.SelfTest != "FAILED" || len(f.Mismatches) == 0 {
		t.Errorf("file: selfTest %q mismatches %d", f.SelfTest, len(f.Mismatches))
	}
}

func TestBenchmarkFlagErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		env  []string
		args []string
		want string // substring of the one stderr line
	}{
		{"runs zero", nil, []string{"--runs", "0"}, "--runs"},
		{"runs above 1000", nil, []string{"--runs=1001"}, "--runs"},
		{"runs not a number", nil, []string{"--runs", "many"}, "--runs"},
		{"runs empty", nil, []string{"--runs="}, "--runs"},
		{"runs without value", nil, []string{"--runs"}, "--runs"},
		{"value starting with --", nil, []string{"--runs", "--jitter", "5"}, "--runs"},
		{"jitter above 60000", nil, []string{"--jitter", "60001"}, "--jitter"},
		{"jitter negative", nil, []string{"--jitter=-1"}, "--jitter"},
		{"unknown scenario", nil, []string{"--scenarios", "F1,F6"}, "--scenarios"},
		{"empty scenario entry", nil, []string{"--scenarios", "F1,,F3"}, "--scenarios"},
		{"duplicate scenario", nil, []string{"--scenarios", "F1,f1"}, "--scenarios"},
		{"chaos is not a benchmark scenario", nil, []string{"--scenarios", "chaos"}, "--scenarios"},
		{"seed without jitter", nil, []string{"--seed", "5"}, "--seed"},
		{"unknown flag", nil, []string{"--scenario", "F1"}, "--scenario"},
		{"positional argument", nil, []string{"F1"}, `"F1"`},
		{"bad test hook", []string{"AGENT_HARNESS_SELFTEST_BREAK=yes"}, nil, "AGENT_HARNESS_SELFTEST_BREAK"},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			stdout, stderr, code := runBuilt(t, dir, tc.env, append([]string{"benchmark"}, tc.args...)...)
			if code != 2 {
				t.Errorf("exit %d, want 2", code)
			}
			if stdout != "" {
				t.Errorf("stdout = %q, want nothing", stdout)
			}
			if strings.Count(stderr, "\n") != 1 || !strings.HasPrefix(stderr, "[agent-harness] ") || !strings.Contains(stderr, tc.want) {
				t.Errorf("stderr = %q, want one line naming %s", stderr, tc.want)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(dir, ".cuonztech")); err == nil {
		t.Errorf("a usage error wrote .cuonztech")
	}
}

func TestBenchmarkHelp(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "benchmark", "--help")
	if code != 0 || !strings.HasPrefix(stdout, "Usage: agent-harness benchmark") || stderr != "" {
		t.Errorf("exit %d stdout %q stderr %q", code, stdout, stderr)
	}
}

func TestBenchmarkReportUnwritable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// A directory where the report file should be: exit 1, one stderr line.
	if err := os.MkdirAll(filepath.Join(dir, ".cuonztech", "benchmark-report.json"), 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := runBuilt(t, dir, nil, "benchmark", "--scenarios", "F3")
	if code != 1 || stdout != "" || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "benchmark-report.json") {
		t.Errorf("exit %d stdout %q stderr %q, want 1, nothing, one line naming the file", code, stdout, stderr)
	}
}
