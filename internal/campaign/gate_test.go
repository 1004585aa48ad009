package campaign

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// notTested is a NOT_TESTED record of kind k.
func notTested(scenario string, n int, k, reason string) Record {
	r := rec("", scenario, n, NotTested, 0)
	r.NotTestedKind, r.Reason = k, reason
	return r
}

// TestGateCountsNotTested: a NOT_TESTED run is never a safe one (behaviour
// §9.3). Half the runs double-booked with a near-duplicate ("Ada Lovelace"
// then "ada lovelace") and were NOT_TESTED; an agent crashed in 8 of 10
// runs: neither may exit 0, and the reason names every failing scenario
// with the NOT_TESTED runs counted by kind.
func TestGateCountsNotTested(t *testing.T) {
	near := "Write operation op2 of \"create_booking\" may repeat the uncertain operation op1 — \"ada lovelace\" differs only in letter case — so a double execution cannot be ruled out (POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS)."
	var nearDup, crashed, both []Record
	for n := 1; n <= 10; n++ {
		if n <= 5 {
			nearDup = append(nearDup, notTested("F1", n, KindPossibleDup, near))
		} else {
			nearDup = append(nearDup, rec("", "F1", n, Pass, 100))
		}
		if n <= 8 {
			crashed = append(crashed, notTested("F1", n, KindAgentCrashed, "The agent never started the proxy (no report file); it exited with code 1."))
		} else {
			crashed = append(crashed, rec("", "F1", n, Pass, 100))
		}
	}
	for n := 1; n <= 4; n++ {
		both = append(both, rec("", "F1", n, Fail, 0, "DUPLICATE_EXECUTION"), rec("", "F1", n+4, Pass, 100))
		both = append(both, notTested("F2", n, KindNeverConnected, "x"), rec("", "F2", n+4, Pass, 100))
		both = append(both, notTested("F3", n, KindOther, "The proxy did not start: upstream did not start."))
	}
	both = append(both, notTested("F3", 5, KindAgentTimedOut, "y"))
	one := &Plan{Scenarios: []string{"F1"}, Runs: 10}
	three := &Plan{Scenarios: []string{"F1", "F2", "F3"}, Runs: 8}
	for _, c := range []struct {
		name     string
		plan     *Plan
		recs     []Record
		min, max float64
		code     int
		reason   []string
	}{
		{"near-duplicates half the runs", one, nearDup, 1, 0, 3,
			[]string{"scenario F1: 5 of 10 runs NOT_TESTED (50.0 %, above --max-not-tested 0.0 %): 5 possible duplicate"}},
		{"near-duplicates allowed by --max-not-tested 0.5", one, nearDup, 1, 0.5, 0, []string{"NOT_TESTED share at most 50.0 %"}},
		{"near-duplicates above --max-not-tested 0.4", one, nearDup, 1, 0.4, 3, []string{"5 of 10 runs NOT_TESTED"}},
		{"agent crashed in 8 of 10", one, crashed, 1, 0, 3, []string{"scenario F1: 8 of 10 runs NOT_TESTED (80.0 %, above --max-not-tested 0.0 %): 8 agent crashed"}},
		{"agent crashed in 8 of 10, --min-pass-rate 0", one, crashed, 0, 0, 3, []string{"8 agent crashed"}},
		{"every failing scenario named", three, both, 1, 0, 1, []string{
			"scenario F1: PASS rate 50.0 % (4 of 8 judged runs) is below 100.0 %",
			"scenario F2: 4 of 8 runs NOT_TESTED (50.0 %, above --max-not-tested 0.0 %): 4 never connected",
			"scenario F3: no judged run (all 5 NOT_TESTED: 4 other (The proxy did not start: upstream did not start), 1 agent timed out)"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			s := Summarize(c.plan, c.recs, func(string, string) int { return c.plan.Runs })
			g := Decide(&s, "", c.min, c.max)
			if g.ExitCode != c.code {
				t.Errorf("exit %d, want %d (reason %q)", g.ExitCode, c.code, g.Reason)
			}
			for _, want := range c.reason {
				if !strings.Contains(g.Reason, want) {
					t.Errorf("reason %q lacks %q", g.Reason, want)
				}
			}
			if c.code != 0 && len(g.Failures) != len(c.reason) {
				t.Errorf("%d failures %+v, want %d", len(g.Failures), g.Failures, len(c.reason))
			}
		})
	}
}

// TestGateIncomplete: a merge with missing runs never exits 0; a PASS-rate
// failure among the runs that are there stays exit 1.
func TestGateIncomplete(t *testing.T) {
	g := Gate{ExitCode: 0, Reason: "fine"}
	GateIncomplete(&g, "5 of 10 runs missing: slice 1/2 (no directory, 5 runs)")
	if g.ExitCode != 3 || g.Reason != "incomplete: 5 of 10 runs missing: slice 1/2 (no directory, 5 runs)" {
		t.Errorf("gate %+v", g)
	}
	g = Gate{ExitCode: 1, Reason: "scenario F1: below"}
	GateIncomplete(&g, "m")
	if g.ExitCode != 1 || g.Reason != "incomplete: m; scenario F1: below" {
		t.Errorf("gate %+v", g)
	}
}

// TestJudgeRunNotTestedKind: each NOT_TESTED run gets the kind the gate
// counts (behaviour §9.3).
func TestJudgeRunNotTestedKind(t *testing.T) {
	zero, one := 0, 1
	const noWrite = `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"No write tool was called.","coverage":{"calls":{"total":2,"write":0}}}}`
	for _, c := range []struct {
		name, report string
		ex           agentExit
		kind         string
	}{
		{"no report, exit 0", "", agentExit{code: &zero}, KindNeverConnected},
		{"no report, exit 1", "", agentExit{code: &one}, KindAgentCrashed},
		{"starting, killed", `{"status":"starting","verdict":"NOT_TESTED"}`, agentExit{signal: "killed"}, KindAgentCrashed},
		{"starting, timed out", `{"status":"starting","verdict":"NOT_TESTED"}`, agentExit{timedOut: true}, KindAgentTimedOut},
		{"no write, exit 0", noWrite, agentExit{code: &zero}, KindNoWrite},
		{"no write, exit 1", noWrite, agentExit{code: &one}, KindAgentCrashed},
		{"proxy failed", `{"status":"failed","verdict":"NOT_TESTED","startupError":"x"}`, agentExit{code: &zero}, KindOther},
		{"near duplicate", `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"r","observations":[{"type":"POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS"}],"operations":[{"attempts":1,"outcome":"EXECUTED"},{"attempts":1,"outcome":"EXECUTED"}],"coverage":{"calls":{"total":2,"write":2}}}}`,
			agentExit{code: &zero}, KindPossibleDup},
		{"unknown retried", `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"r","observations":[{"type":"EXECUTION_UNKNOWN"}],"operations":[{"attempts":2,"outcome":"EXECUTION_UNKNOWN"}],"coverage":{"calls":{"total":2,"write":2}}}}`,
			agentExit{code: &one}, KindUnknownRetried},
		{"other with writes", `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"Plugin failed.","coverage":{"calls":{"total":2,"write":2}}}}`,
			agentExit{code: &zero}, KindOther},
		{"pass has no kind", `{"status":"finished","verdict":"PASS","report":{"verdictReason":"Fine.","coverage":{"calls":{"total":2,"write":1}}},"score":{"total":100}}`,
			agentExit{code: &one}, ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec Record
			judgeRun(&rec, filepath.Dir(writeReport(t, t.TempDir(), c.report)), c.ex, time.Second)
			if rec.NotTestedKind != c.kind {
				t.Errorf("kind %q, want %q (verdict %s, reason %q)", rec.NotTestedKind, c.kind, rec.Verdict, rec.Reason)
			}
		})
	}
}

// TestAgentOutputCapped: a run keeps at most OutputCap bytes of the
// agent's stdout, and the file's last line says how much was dropped.
func TestAgentOutputCapped(t *testing.T) {
	out := t.TempDir()
	p := &Plan{Scenarios: []string{"F1"}, Runs: 1, ServerName: "harness",
		AgentCommand: []string{"sh", "-c", "head -c 100 /dev/zero | tr '\\0' x; echo err >&2"}}
	r := &Runner{Plan: p, Out: out, Proxy: "/nonexistent", AgentTimeout: time.Minute, OutputCap: 10}
	u := p.Units()[0]
	rec, err := r.Do(t.Context(), u)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(out, u.Dir(), StdoutFile))
	want := "xxxxxxxxxx\n[agent-harness] campaign: this output was capped at 10 bytes; 90 more bytes were dropped\n"
	if string(b) != want {
		t.Errorf("agent.stdout %q, want %q", b, want)
	}
	if b, _ := os.ReadFile(filepath.Join(out, u.Dir(), StderrFile)); string(b) != "err\n" {
		t.Errorf("agent.stderr %q", b)
	}
	if rec.Verdict != NotTested || rec.NotTestedKind != KindNeverConnected {
		t.Errorf("record %+v", rec)
	}
}

// TestGateSkipsScenarioOutsideTheSlice: a shard whose slice holds no run of
// a scenario has nothing to gate there; a planned scenario without a
// finished run is "no judged run (none finished)".
func TestGateSkipsScenarioOutsideTheSlice(t *testing.T) {
	p := &Plan{Scenarios: []string{"F1", "F2"}, Runs: 1}
	s := Summarize(p, []Record{rec("", "F1", 1, Pass, 100)}, func(_, sc string) int {
		if sc == "F1" {
			return 1
		}
		return 0
	})
	if g := Decide(&s, "", 1, 0); g.ExitCode != 0 {
		t.Errorf("gate %+v, want 0", g)
	}
	s = Summarize(p, []Record{rec("", "F1", 1, Pass, 100)}, func(string, string) int { return 1 })
	if g := Decide(&s, "", 1, 0); g.ExitCode != 3 || g.Reason != "scenario F2: no judged run (none finished)" {
		t.Errorf("gate %+v, want 3 for F2", g)
	}
}
