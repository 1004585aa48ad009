package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Red-team findings of the wave that landed state probes, multi-round-trip
// calls, tasks, cancellation and the trace checker's new rules. Each test
// FAILS on the code it was written against and says what a user would
// wrongly see; none of them fixes anything.

// redForge rewrites the recorded trace src line by line with edit (which
// gets each line decoded and may change it in place) and writes it to a file
// in a temporary directory.
func redForge(t *testing.T, src string, edit func(line map[string]any)) string {
	t.Helper()
	b, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	for _, raw := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(raw), &l); err != nil {
			t.Fatal(err)
		}
		edit(l)
		enc, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(enc)
		out.WriteByte('\n')
	}
	dst := filepath.Join(t.TempDir(), "forged.trace.jsonl")
	if err := os.WriteFile(dst, []byte(out.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestRedTraceIncompleteWithoutResult: the trace checker checks an
// `incomplete` answer's result for resultType input_required only when the
// line has a result. Take the recorded F1 trace of the naive agent (a
// DUPLICATE_EXECUTION, `judge` exits 1), change the second, executed
// create_booking answer's outcome to "incomplete" and delete its result and
// responseDigest: `judge` accepts the trace and says PASS, exit 0 — an
// edited trace re-judged FAIL→PASS. It should refuse the line (exit 2): the
// writer records the upstream's input_required result on every incomplete
// answer of a forwarded call, so one without a result is not its line.
func TestRedTraceIncompleteWithoutResult(t *testing.T) {
	src := filepath.Join(repoRoot(t), "cmd", "agent-harness", "testdata", "recorded", "f1-naive.trace.jsonl")
	if _, _, code := runBuilt(t, t.TempDir(), nil, "judge", src); code != 1 {
		t.Fatalf("the recorded trace exits %d, want 1 (FAIL)", code)
	}
	forged := redForge(t, src, func(l map[string]any) {
		if l["type"] == "answer" && l["call"] == 2.0 {
			l["outcome"] = "incomplete"
			delete(l, "result")
			delete(l, "responseDigest")
		}
	})
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "judge", forged)
	if code != 2 {
		t.Errorf("judge of the forged trace exits %d, want 2 (refused); stdout:\n%s\nstderr:\n%s", code, firstLines(stdout, 3), stderr)
	}
}

// firstLines is s's first n lines.
func firstLines(s string, n int) string {
	ls := strings.SplitN(s, "\n", n+1)
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}
