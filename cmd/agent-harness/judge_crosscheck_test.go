package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The traces in testdata/recorded were recorded by the real proxy (a
// campaign run of the reference agent, --behaviour naive, against the
// sample server): under F1 the agent re-sends the booking after the ghost
// write (DUPLICATE_EXECUTION, FAIL); under F2 it re-sends at once after the
// 429 that asked to wait 60 s (RETRY_AFTER_VIOLATED, FAIL).
var (
	recordedF1 = filepath.Join("testdata", "recorded", "f1-naive.trace.jsonl")
	recordedF2 = filepath.Join("testdata", "recorded", "f2-naive.trace.jsonl")
)

// recordedLines reads a trace as one JSON object per line.
func recordedLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []map[string]any
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		out = append(out, m)
	}
	return out
}

// judgeLines writes lines as a trace and runs `agent-harness judge` on it
// with --report-file: the exit code, the rebuilt report's verdict ("" when
// none) and stderr.
func judgeLines(t *testing.T, lines []map[string]any) (int, string, string) {
	t.Helper()
	dir := t.TempDir()
	var b bytes.Buffer
	for _, l := range lines {
		j, err := json.Marshal(l)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(j, '\n'))
	}
	path := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	report := filepath.Join(dir, "report.json")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), []string{"judge", path, "--report-file", report}, nil, &stdout, &stderr)
	var r struct {
		Verdict string `json:"verdict"`
	}
	if rb, err := os.ReadFile(report); err == nil {
		_ = json.Unmarshal(rb, &r)
	}
	return code, r.Verdict, stderr.String()
}

// editLines applies f to every line of the given type and call number.
func editLines(lines []map[string]any, typ string, call float64, f func(map[string]any)) []map[string]any {
	for _, l := range lines {
		if l["type"] == typ && l["call"] == call {
			f(l)
		}
	}
	return lines
}

// TestJudgeRefusesTraceContradictingItself (red team 2, finding 6; SPEC
// §17.4, behaviour §7.2): a recorded FAIL edited so that one line
// contradicts another line of the same trace is exit 2 with one stderr
// line naming the line and the rule — never a verdict (each edit was judged
// PASS before).
func TestJudgeRefusesTraceContradictingItself(t *testing.T) {
	t.Parallel()
	for _, real := range []string{recordedF1, recordedF2} {
		if code, verdict, stderr := judgeLines(t, recordedLines(t, real)); code != 1 || verdict != "FAIL" {
			t.Fatalf("%s as recorded: exit %d verdict %q, want 1 FAIL\n%s", real, code, verdict, stderr)
		}
	}
	const ruleClass = "(rule: a call's class, acceptsKey and idempotent are its tool's in a listing)"
	tests := []struct {
		name  string
		trace string
		edit  func([]map[string]any) []map[string]any
		want  string
	}{
		// The tools line before it lists create_booking as a write; the
		// relay classifies a call from that listing.
		{"call class read against the listing", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "call", 2, func(l map[string]any) { l["class"] = "read" })
		}, `line 8: call 2 of tool "create_booking" is recorded as class read, acceptsKey true, idempotent false, which no listing of the trace gives it ` + ruleClass},
		// "unknown" is the class of a tool the upstream did not list.
		{"call class unknown for a listed tool", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "call", 2, func(l map[string]any) { l["class"] = "unknown" })
		}, `line 8: call 2 of tool "create_booking" is recorded as class unknown, acceptsKey true, idempotent false, which no listing of the trace gives it ` + ruleClass},
		{"call class unknown without acceptsKey for a listed tool", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "call", 2, func(l map[string]any) { l["class"] = "unknown"; delete(l, "acceptsKey") })
		}, `line 8: call 2 of tool "create_booking" is recorded as class unknown, acceptsKey false, idempotent false, which no listing of the trace gives it ` + ruleClass},
		{"call class unclassified for a listed write", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "call", 2, func(l map[string]any) { l["class"] = "unclassified" })
		}, `line 8: call 2 of tool "create_booking" is recorded as class unclassified`},
		// The listing has no idempotentHint for create_booking.
		{"call idempotent against the listing", recordedF1, func(ls []map[string]any) []map[string]any {
			for _, c := range []float64{1, 2} {
				editLines(ls, "call", c, func(l map[string]any) { l["idempotent"] = true })
			}
			return ls
		}, `line 4: call 1 of tool "create_booking" is recorded as class write, acceptsKey true, idempotent true`},
		// The listing's classification is the definitions' under the
		// header's settings.
		{"listing classifies a write as read", recordedF1, func(ls []map[string]any) []map[string]any {
			for _, l := range ls {
				if l["type"] == "tools" {
					for _, tl := range l["tools"].([]any) {
						c := tl.(map[string]any)["classification"].(map[string]any)
						if c["name"] == "create_booking" {
							c["class"] = "read"
						}
					}
					l["writes"] = []any{"cancel_booking"}
				}
			}
			return editLines(editLines(ls, "call", 1, func(l map[string]any) { l["class"] = "read" }), "call", 2, func(l map[string]any) { l["class"] = "read" })
		}, `line 3: tool "create_booking" is recorded as class read`},
		{"listing's writes leave out a write", recordedF1, func(ls []map[string]any) []map[string]any {
			for _, l := range ls {
				if l["type"] == "tools" {
					l["writes"] = []any{"cancel_booking"}
				}
			}
			return ls
		}, `line 3: the listing's writes are ["cancel_booking"], its tools classified write are ["cancel_booking" "create_booking"] (rule: a listing's writes are the tools it classifies write)`},
		// The call line's tool is not the tool its params name.
		{"call tool differs from params.name", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "call", 2, func(l map[string]any) { l["tool"] = "create_booking\u200b" })
		}, `line 8: call 2 is recorded as tool "create_booking\u200b", its params name "create_booking" (rule: a call's tool is the name its params give)`},
		// A forwarded call cannot have been answered by an injected fault
		// without forwarding; F1 is a ghost write (executed).
		{"F1 ghost write recorded as injected-not-executed after forwarded", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 1, func(l map[string]any) { l["outcome"] = "injected-not-executed" })
		}, `line 6: call 1 was forwarded, its answer says injected-not-executed (rule: a forwarded call is never injected-not-executed, and a fault on it means it executed)`},
		{"F1 ghost write recorded as rejected", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 1, func(l map[string]any) { l["outcome"] = "upstream-rejected" })
		}, `line 6: call 1 was forwarded and answered with fault "timeout", its outcome is upstream-rejected, not executed`},
		// The second booking's result (B-0002, no isError) says it executed.
		{"re-send recorded as rejected against its result", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 2, func(l map[string]any) { l["outcome"] = "upstream-rejected" })
		}, `line 10: call 2's answer is upstream-rejected, its result's isError is false (rule: an executed answer's result is no isError result, an upstream-rejected one's is)`},
		// No HTTP status can prove a call not executed over stdio.
		{"upstream-not-executed over a stdio upstream", recordedF1, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 1, func(l map[string]any) { l["outcome"] = "upstream-not-executed" })
		}, `line 6: call 1's outcome is upstream-not-executed, the header's upstream is stdio (rule: no upstream-not-executed over a stdio upstream)`},
		// The writer writes each line when it happens.
		{"call time after its own answer", recordedF2, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "call", 2, func(l map[string]any) { l["t"] = 90000 })
		}, `line 8: the forwarded line of call 2 is earlier (t 15.123543 ms) than a line of that call before it (t 90000 ms) (rule: a call's lines are in time order: call, forwarded, answer, delivered)`},
		// retryAfterMs × 1 ms overflowed time.Duration in the judge's
		// deadline; the live maximum is --retry-after 86400.
		{"F2 429 asking to wait 292 years", recordedF2, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 1, func(l map[string]any) { l["retryAfterMs"] = 9223372036855 })
		}, `line 5: $.retryAfterMs: 9223372036855 violates maximum 86400000 (rule: every line matches trace.schema.json)`},
		// The header records --retry-after 60; the injected 429 said 60 s.
		{"F2 429 without its retry_after", recordedF2, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 1, func(l map[string]any) { delete(l, "retryAfterMs") })
		}, `line 5: call 1's 429 has retryAfterMs 0, the header's retryAfter is 60 s (rule: an injected 429 carries the header's retry_after)`},
		{"F2 429 with a shorter retry_after", recordedF2, func(ls []map[string]any) []map[string]any {
			return editLines(ls, "answer", 1, func(l map[string]any) { l["retryAfterMs"] = 1 })
		}, `line 5: call 1's 429 has retryAfterMs 1, the header's retryAfter is 60 s`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			code, verdict, stderr := judgeLines(t, tt.edit(recordedLines(t, tt.trace)))
			if code != exitUsage || verdict != "" || !strings.Contains(stderr, tt.want) || strings.Count(stderr, "\n") != 1 {
				t.Errorf("forged trace: exit %d verdict %q, stderr %q; want exit 2, no report and one line with %q", code, verdict, stderr, tt.want)
			}
		})
	}
}

// TestJudgeTraceWriteRelistedAsReadStaysWrite (red team 2, finding 7;
// behaviour §4.8): a tools line mid-run — the upstream re-listed after
// list_changed — that marks create_booking readOnlyHint between the first
// booking and its re-send, as an older proxy recorded it (the call then a
// read): the tool stays a write for the rest of the run, so the second
// execution is a DUPLICATE_EXECUTION, FAIL (it was PASS).
func TestJudgeTraceWriteRelistedAsReadStaysWrite(t *testing.T) {
	t.Parallel()
	// relisted inserts, before call 2, the listing re-read after
	// list_changed with create_booking marked readOnlyHint (a read), and
	// records call 2 as a read of it; noKey also records the listing
	// without create_booking's key field and the call without acceptsKey
	// (the red team's edit), which the definition contradicts.
	relisted := func(noKey bool) []map[string]any {
		ls := recordedLines(t, recordedF1)
		var out []map[string]any
		for _, l := range ls {
			if l["type"] == "call" && l["call"] == float64(2) {
				var relisted map[string]any
				for _, m := range ls {
					if m["type"] == "tools" {
						b, _ := json.Marshal(m)
						_ = json.Unmarshal(b, &relisted)
					}
				}
				relisted["t"] = l["t"]
				relisted["writes"] = []any{"cancel_booking"}
				for _, tl := range relisted["tools"].([]any) {
					tool := tl.(map[string]any)
					c := tool["classification"].(map[string]any)
					if c["name"] == "create_booking" {
						c["class"], c["reason"] = "read", "annotation readOnlyHint=true"
						if noKey {
							c["keyFields"] = []any{}
						}
						def := tool["definition"].(map[string]any)
						def["annotations"] = map[string]any{"readOnlyHint": true}
					}
				}
				out = append(out, relisted)
				l["class"] = "read"
				if noKey {
					delete(l, "acceptsKey")
				}
			}
			out = append(out, l)
		}
		return out
	}
	if code, verdict, stderr := judgeLines(t, relisted(false)); code != 1 || verdict != "FAIL" {
		t.Errorf("create_booking executed twice, re-listed as read-only between the calls: exit %d verdict %q, want 1 FAIL\nstderr:\n%s", code, verdict, stderr)
	}
	const want = `line 8: tool "create_booking" is recorded as class read (keyFields [], idempotent false), its definition gives class read (keyFields ["idempotency_key"], idempotent false) (rule: a listing's classification is the one its definitions and the header's settings give)`
	if code, verdict, stderr := judgeLines(t, relisted(true)); code != exitUsage || verdict != "" || !strings.Contains(stderr, want) {
		t.Errorf("the same with the key field left out of the listing: exit %d verdict %q, stderr %q; want 2 and %q", code, verdict, stderr, want)
	}
}
