package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The traces in testdata/red2 were recorded by the real proxy (a campaign
// run of the reference agent, --behaviour naive, against the sample
// server): under F1 the agent re-sends the booking after the ghost write
// (DUPLICATE_EXECUTION, FAIL); under F2 it re-sends at once after the 429
// that asked to wait 60 s (RETRY_AFTER_VIOLATED, FAIL).

// red2Lines reads a trace as one JSON object per line.
func red2Lines(t *testing.T, path string) []map[string]any {
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

// red2Judge writes lines as a trace and runs `agent-harness judge` on it:
// the exit code and the rebuilt report's verdict ("" when none).
func red2Judge(t *testing.T, lines []map[string]any) (int, string, string) {
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
	cmd := exec.Command(e2eBinary(t, "agent-harness"), "judge", path, "--report-file", report)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	var r struct {
		Verdict string `json:"verdict"`
	}
	if rb, err := os.ReadFile(report); err == nil {
		_ = json.Unmarshal(rb, &r)
	}
	return cmd.ProcessState.ExitCode(), r.Verdict, stderr.String()
}

// red2Edit applies f to every line of the given type and call number.
func red2Edit(lines []map[string]any, typ string, call float64, f func(map[string]any)) []map[string]any {
	for _, l := range lines {
		if l["type"] == typ && l["call"] == call {
			f(l)
		}
	}
	return lines
}

// Red team (SPEC §17.4, behaviour §7.2): `judge TRACE` accepts traces the
// real proxy never writes — lines that contradict earlier lines of the
// same trace — and judges them PASS (exit 0) where the recorded trace is
// FAIL (exit 1). Expected: exit 2 naming the line and the rule (at least:
// never a better verdict than the recorded trace's).
func TestRed2JudgeTraceForgeriesThatPass(t *testing.T) {
	t.Parallel()
	f1 := filepath.Join("testdata", "red2", "f1-naive.trace.jsonl")
	f2 := filepath.Join("testdata", "red2", "f2-naive.trace.jsonl")
	for _, real := range []string{f1, f2} {
		if code, verdict, stderr := red2Judge(t, red2Lines(t, real)); code != 1 || verdict != "FAIL" {
			t.Fatalf("%s as recorded: exit %d verdict %q, want 1 FAIL\n%s", real, code, verdict, stderr)
		}
	}
	tests := []struct {
		name  string
		trace string
		edit  func([]map[string]any) []map[string]any
	}{
		// The tools line before it lists create_booking as a write (in
		// "writes", class write); the relay classifies a call from that
		// listing, so it never records the re-send as a read.
		{"call class read against the listing", f1, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "call", 2, func(l map[string]any) { l["class"] = "read" })
		}},
		// "unknown" is the class of a tool the upstream did not list; this
		// one was listed before the call.
		{"call class unknown for a listed tool", f1, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "call", 2, func(l map[string]any) { l["class"] = "unknown" })
		}},
		// The listing has no idempotentHint for create_booking.
		{"call idempotent against the listing", f1, func(ls []map[string]any) []map[string]any {
			for _, c := range []float64{1, 2} {
				red2Edit(ls, "call", c, func(l map[string]any) { l["idempotent"] = true })
			}
			return ls
		}},
		// The call line's tool is not the tool its params name.
		{"call tool differs from params.name", f1, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "call", 2, func(l map[string]any) { l["tool"] = "create_booking\u200b" })
		}},
		// A call that was forwarded (its forwarded line precedes) cannot
		// have been answered by an injected fault without forwarding; F1
		// is a ghost write (executed) by definition.
		{"F1 ghost write recorded as injected-not-executed after forwarded", f1, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "answer", 1, func(l map[string]any) { l["outcome"] = "injected-not-executed" })
		}},
		// The header's upstream transport is stdio: no HTTP status can
		// prove a call not executed.
		{"upstream-not-executed over a stdio upstream", f1, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "answer", 1, func(l map[string]any) { l["outcome"] = "upstream-not-executed" })
		}},
		// The call's t is after its own forwarded and answer lines' t:
		// the writer writes each line when it happens, under one lock.
		{"call time after its own answer", f2, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "call", 2, func(l map[string]any) { l["t"] = 90000 })
		}},
		// A longer wait asked by the 429 (the schema has no maximum; the
		// flag allows 86400 s): retryAfterMs × 1 ms overflows
		// time.Duration in the judge's deadline (judge.rateLimited), the
		// deadline lies in the past, and the immediate re-send passes.
		{"F2 429 asking to wait 292 years", f2, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "answer", 1, func(l map[string]any) { l["retryAfterMs"] = 9223372036855 })
		}},
		// The header records --retry-after 60; the injected 429 said 60 s.
		{"F2 429 without its retry_after", f2, func(ls []map[string]any) []map[string]any {
			return red2Edit(ls, "answer", 1, func(l map[string]any) { delete(l, "retryAfterMs") })
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, verdict, stderr := red2Judge(t, tt.edit(red2Lines(t, tt.trace)))
			if code == 0 || verdict == "PASS" {
				t.Errorf("forged trace: exit %d verdict %s; the recorded trace is FAIL (exit 1); want exit 2 naming the line and the rule\nstderr:\n%s", code, verdict, stderr)
			}
		})
	}
}

// Red team (behaviour §2.6, §4): a tools line mid-run — the upstream
// re-listed after list_changed — that marks create_booking readOnlyHint
// after the first booking turns its re-send into a read: the write
// operation's second execution is not counted and the trace is PASS,
// though the upstream executed create_booking twice (the answer of call 2
// is a second booking, B-0002). The trace is consistent (the call's class
// follows the newest listing, as the relay classifies it), so a live
// upstream that re-lists this way should get the same PASS (not run
// live here). Expected, as for idempotentHint (behaviour §4: "a tool
// re-listed without the hint is judged strictly from then on"): a tool
// that was a write stays judged as one — FAIL, or at least never PASS.
func TestRed2JudgeTraceWriteRelistedAsReadPasses(t *testing.T) {
	t.Parallel()
	ls := red2Lines(t, filepath.Join("testdata", "red2", "f1-naive.trace.jsonl"))
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
					c["class"], c["reason"], c["keyFields"] = "read", "readOnlyHint", []any{}
					def := tool["definition"].(map[string]any)
					def["annotations"] = map[string]any{"readOnlyHint": true}
				}
			}
			out = append(out, relisted)
			l["class"] = "read"
			delete(l, "acceptsKey")
		}
		out = append(out, l)
	}
	code, verdict, stderr := red2Judge(t, out)
	if code == 0 || verdict == "PASS" {
		t.Errorf("create_booking executed twice, re-listed as read-only between the calls: exit %d verdict %s; want FAIL (or at least not PASS)\nstderr:\n%s", code, verdict, stderr)
	}
}

// Red team (SPEC §17.4, behaviour §7.2): a trace the real proxy writes is
// refused. A tools/call whose params carry no string "name" ({}, a number,
// "", null, an array — an agent's malformed call, answered by the
// upstream) is recorded as a call line without "tool", which
// trace.schema.json requires: `judge TRACE` exits 2 ("missing required
// \"tool\"") on the proxy's own trace of a finished run whose report is
// PASS. Expected: the trace re-judges to the live report's verdict.
func TestRed2JudgeRefusesRealTraceOfNamelessCall(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tr, report := filepath.Join(dir, "trace.jsonl"), filepath.Join(dir, "report.json")
	p := startProxy(t, nil, append(upstreamFlags(t), "--scenario", "F1", "--audit-tools", "off", "--trace", tr, "--report-file", report)...)
	p.initialize()
	p.send(rpcRequest("2", "tools/call", `{"name":"create_booking","arguments":{"room":"12"}}`))
	p.until("2")
	p.send(rpcRequest("3", "tools/call", `{}`))
	p.until("3")
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("proxy exit %d\nstderr:\n%s", code, p.stderr.String())
	}
	var live struct {
		Status, Verdict string
	}
	b, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(b, &live) != nil || live.Status != "finished" || live.Verdict != "PASS" {
		t.Fatalf("live report: %v %+v, want finished PASS", err, live)
	}
	cmd := exec.Command(e2eBinary(t, "agent-harness"), "judge", tr)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		t.Errorf("judge of the proxy's own trace: exit %d, want 0 (the live report is PASS)\nstderr:\n%s", code, stderr.String())
	}
}
