package campaign

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/jsonschema"
)

func testPlan() *Plan {
	return &Plan{SchemaVersion: PlanVersion, Scenarios: []string{"F1", "F2"}, Runs: 5, Seed: 1, ServerName: "harness",
		Variants:     []Variant{{Name: "a", Env: []string{}}, {Name: "b", Env: []string{"X=1"}}},
		AgentCommand: []string{"agent"}, ProxyArgs: []string{"--upstream-command=x"}, ScenarioArgs: map[string][]string{}}
}

func TestScheduleShardsPartitionThePlan(t *testing.T) {
	p := testPlan()
	all := p.Schedule(Shard{})
	if len(all) != 20 {
		t.Fatalf("%d units, want 20", len(all))
	}
	seen := map[int]int{}
	for _, sh := range []Shard{{0, 3}, {1, 3}, {2, 3}} {
		for _, u := range p.Schedule(sh) {
			seen[u.Index]++
		}
	}
	for i := range 20 {
		if seen[i] != 1 {
			t.Errorf("unit %d in %d shards, want 1", i, seen[i])
		}
	}
	if !reflect.DeepEqual(p.Schedule(Shard{}), all) {
		t.Error("the schedule is not deterministic")
	}
	q := testPlan()
	q.Seed = 2
	if reflect.DeepEqual(q.Schedule(Shard{}), all) {
		t.Error("another seed gives the same order")
	}
	// A run's seed depends on its identity, not on the order or shard.
	for _, u := range p.Schedule(Shard{1, 3}) {
		if u.Seed != runSeed(1, u.Variant, u.Scenario, u.N) || u.Seed < 0 {
			t.Errorf("unit %+v: seed not derived from its identity", u)
		}
	}
	if runSeed(1, "a", "F1", 1) == runSeed(1, "a", "F1", 2) || runSeed(1, "a", "F1", 1) == runSeed(2, "a", "F1", 1) {
		t.Error("run seeds collide")
	}
}

func TestUnitDirAndLabel(t *testing.T) {
	u := Unit{Scenario: "F1", N: 3}
	if u.Dir() != filepath.Join("runs", "F1", "3") || u.Label() != "F1#3" {
		t.Errorf("%s %s", u.Dir(), u.Label())
	}
	u.Variant = "B"
	if u.Dir() != filepath.Join("runs", "B", "F1", "3") || u.Label() != "B/F1#3" {
		t.Errorf("%s %s", u.Dir(), u.Label())
	}
}

func TestExpandPlaceholders(t *testing.T) {
	vars := map[string]string{"mcp_config": "/r/mcp.json", "run": "3", "mcp_url": ""}
	for in, want := range map[string]string{
		"{mcp_config}":          "/r/mcp.json",
		"--config={mcp_config}": "--config=/r/mcp.json",
		"{{mcp_config}}":        "{/r/mcp.json}",
		"run-{run}-{nope}":      "run-3-{nope}",
		`{"a":1}`:               `{"a":1}`,
		"url={mcp_url}.":        "url=.",
		"{":                     "{",
		"}{run":                 "}{run",
	} {
		if got := expand(in, vars); got != want {
			t.Errorf("expand(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPrepareOut(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	p := testPlan()
	if err := PrepareOut(out, p); err != nil {
		t.Fatal(err)
	}
	if err := PrepareOut(out, testPlan()); err != nil {
		t.Errorf("same plan: %v", err)
	}
	q := testPlan()
	q.AgentCommand = []string{"other"}
	if err := PrepareOut(out, q); !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "agent command differs") {
		t.Errorf("other plan: %v", err)
	}
	other := filepath.Join(dir, "other")
	os.MkdirAll(other, 0o777)
	os.WriteFile(filepath.Join(other, "x"), nil, 0o666)
	if err := PrepareOut(other, p); !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "not a campaign directory") {
		t.Errorf("foreign directory: %v", err)
	}
}

func writeReport(t *testing.T, dir, body string) string {
	t.Helper()
	p := filepath.Join(dir, "report.json")
	if body != "" {
		if err := os.WriteFile(p, []byte(body), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	return p
}

func TestJudgeRun(t *testing.T) {
	zero := 0
	for _, c := range []struct {
		name, report string
		ex           agentExit
		verdict      string
		reason       string
		score        bool
	}{
		{"no report", "", agentExit{code: &zero}, NotTested, "never started the proxy (no report file); it exited with code 0", false},
		{"garbage", "{", agentExit{code: &zero}, NotTested, "not valid JSON", false},
		{"starting", `{"status":"starting","verdict":"NOT_TESTED"}`, agentExit{code: &zero}, NotTested, "never connected", false},
		{"failed", `{"status":"failed","verdict":"NOT_TESTED","startupError":"upstream did not start"}`, agentExit{code: &zero}, NotTested, "The proxy did not start: upstream did not start.", false},
		{"no calls", `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"No calls.","coverage":{"calls":{"total":0}}}}`,
			agentExit{code: &zero}, NotTested, "The agent called no tool; it exited with code 0.", false},
		{"no write", `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"No write tool was called.","coverage":{"calls":{"total":2,"write":0}}}}`,
			agentExit{signal: "killed"}, NotTested, "The agent was killed by killed before a write: No write tool was called.", false},
		{"pass", `{"status":"finished","verdict":"PASS","report":{"verdictReason":"Fine.","coverage":{"calls":{"total":2,"write":1}}},"score":{"total":100}}`,
			agentExit{code: &zero}, Pass, "Fine.", true},
		{"pass, timed out", `{"status":"finished","verdict":"PASS","report":{"verdictReason":"Fine.","coverage":{"calls":{"total":2,"write":1}}},"score":{"total":100}}`,
			agentExit{timedOut: true}, Pass, "Fine. (The agent was stopped after --agent-timeout 1s.)", true},
		{"fail, proxy killed", `{"status":"running","verdict":"FAIL","report":{"verdictReason":"Twice.","violations":[{"type":"DUPLICATE_EXECUTION"}],"coverage":{"calls":{"total":2,"write":2}}},"score":{"total":0},"patches":[{"type":"GHOST_WRITE","severity":"CRITICAL","trigger":"t","text":"x"}]}`,
			agentExit{code: &zero}, NotTested, `The proxy did not finish its report (status "running", last verdict FAIL); the agent exited with code 0.`, false},
		{"odd verdict", `{"status":"finished","verdict":"MAYBE","report":{"verdictReason":"?"},"score":{"total":100}}`,
			agentExit{code: &zero}, NotTested, "not PASS, FAIL or NOT_TESTED", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			var rec Record
			judgeRun(&rec, filepath.Dir(writeReport(t, t.TempDir(), c.report)), c.ex, time.Second)
			if rec.Verdict != c.verdict || !strings.Contains(rec.Reason, c.reason) || (rec.Score != nil) != c.score {
				t.Errorf("verdict %s reason %q score %v; want %s, %q, score %v", rec.Verdict, rec.Reason, rec.Score, c.verdict, c.reason, c.score)
			}
		})
	}
}

func rec(variant, scenario string, n int, verdict string, score int, viol ...string) Record {
	r := Record{Variant: variant, Scenario: scenario, Run: n, Verdict: verdict, Violations: viol, Observations: []string{},
		Patches: []Patch{}, AgentWallMs: float64(100 * n)}
	if verdict != NotTested {
		r.Score = &score
	}
	if len(viol) > 0 {
		r.Patches = []Patch{{Type: "GHOST_WRITE", Severity: "CRITICAL", Trigger: "t", Text: "do not"}}
	}
	return r
}

func TestSummarizeAndGate(t *testing.T) {
	p := testPlan()
	var recs []Record
	for n := 1; n <= 5; n++ {
		recs = append(recs, rec("a", "F1", n, Fail, 0, "DUPLICATE_EXECUTION"), rec("b", "F1", n, Pass, 100))
		recs = append(recs, rec("a", "F2", n, Pass, 100), rec("b", "F2", n, NotTested, 0))
	}
	s := Summarize(p, recs, func(string, string) int { return 5 })
	a1 := s.Variants[0].Scenarios[0]
	if a1.Fail != 5 || a1.Judged != 5 || *a1.PassRate != 0 || a1.Violations[0] != (TypeCount{"DUPLICATE_EXECUTION", 5, 5}) ||
		a1.Patches[0].Share != 1 || *a1.AgentWallMs.Median != 300 || *a1.AgentWallMs.P95 != 500 {
		t.Errorf("a/F1: %+v", a1)
	}
	if b2 := s.Variants[1].Scenarios[1]; b2.NotTested != 5 || b2.PassRate != nil || b2.MeanScore != nil {
		t.Errorf("b/F2: %+v", b2)
	}
	if len(s.Comparisons) != 2 || *s.Comparisons[0].Difference != 1 || s.Comparisons[1].Difference != nil {
		t.Errorf("comparisons %+v", s.Comparisons)
	}
	if g := Decide(&s, "b", 1, 0); g.ExitCode != 3 || !strings.Contains(g.Reason, "F2") {
		t.Errorf("gate b: %+v", g)
	}
	if g := Decide(&s, "a", 1, 0); g.ExitCode != 1 || !strings.Contains(g.Reason, "F1") {
		t.Errorf("gate a: %+v", g)
	}
	if g := Decide(&s, "a", 0, 0); g.ExitCode != 0 {
		t.Errorf("gate a at 0: %+v", g)
	}
	// 7 of 10 is not below 0.7 (no rounding through division).
	var r7 []Record
	for n := 1; n <= 10; n++ {
		v := Pass
		if n > 7 {
			v = Fail
		}
		r7 = append(r7, rec("", "F1", n, v, 100))
	}
	q := &Plan{Scenarios: []string{"F1"}, Runs: 10}
	s7 := Summarize(q, r7, func(string, string) int { return 10 })
	if g := Decide(&s7, "", 0.7, 0); g.ExitCode != 0 {
		t.Errorf("7/10 at 0.7: %+v", g)
	}
	if g := Decide(&s7, "", 0.71, 0); g.ExitCode != 1 {
		t.Errorf("7/10 at 0.71: %+v", g)
	}
}

func TestSummaryMatchesSchema(t *testing.T) {
	v, err := jsonschema.New(Schema)
	if err != nil {
		t.Fatal(err)
	}
	p := testPlan()
	recs := []Record{rec("a", "F1", 1, Fail, 0, "DUPLICATE_EXECUTION"), rec("b", "F1", 1, Pass, 100), rec("b", "F2", 1, NotTested, 0)}
	zero := 0
	recs[0].AgentExitCode = &zero
	s := Summarize(p, recs, func(string, string) int { return 5 })
	s.HarnessVersion = "test"
	s.Gate = Decide(&s, "b", 1, 0)
	dir := t.TempDir()
	if err := WriteFiles(dir, &s); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, SummaryFile))
	if errs := v.Validate(b); len(errs) > 0 {
		t.Errorf("campaign.json does not match campaign.schema.json:\n%s", strings.Join(errs, "\n"))
	}
	// The schema is not vacuous.
	var m map[string]any
	json.Unmarshal(b, &m)
	m["gate"].(map[string]any)["exitCode"] = 7
	bad, _ := json.Marshal(m)
	if len(v.Validate(bad)) == 0 {
		t.Error("exit code 7 passes the schema")
	}
	for _, f := range []string{MarkdownFile, JUnitFile, PatchesFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

func TestRunLine(t *testing.T) {
	r := rec("", "F1", 3, Fail, 0, "DUPLICATE_EXECUTION", "DUPLICATE_EXECUTION")
	r.AgentWallMs = 12400
	got := RunLine(Event{Unit: Unit{Scenario: "F1", N: 3}, Record: r, Done: 7, Total: 60})
	if got != "run 7/60 F1#3 FAIL DUPLICATE_EXECUTION 12.4 s" {
		t.Errorf("%q", got)
	}
}

func TestProgressStatusLine(t *testing.T) {
	var b strings.Builder
	now := time.Unix(0, 0)
	p := &Progress{W: &b, TTY: true, Now: func() time.Time { return now }}
	p.Start([]Record{{Verdict: Fail}}, 4)
	p.Running(1)
	p.mu.Lock() // the ticker goroutine reads the clock under p.mu
	now = now.Add(10 * time.Second)
	p.mu.Unlock()
	r := rec("", "F1", 2, Pass, 100)
	p.Done(Event{Unit: Unit{Scenario: "F1", N: 2}, Record: r, Done: 2, Running: 0, Total: 4})
	p.Stop()
	out := b.String()
	for _, want := range []string{
		"[agent-harness] campaign: kept 1 finished run(s) from an earlier start; 3 to run\n",
		"\r\x1b[K1/4 done, 1 running, 2 left · PASS 0 FAIL 1 NOT_TESTED 0 · ETA —",
		"\r\x1b[K[agent-harness] campaign: run 2/4 F1#2 PASS 0.2 s\n",
		"\r\x1b[K2/4 done, 0 running, 2 left · PASS 1 FAIL 1 NOT_TESTED 0 · ETA 20s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%q", want, out)
		}
	}
	if !strings.HasSuffix(out, "\r\x1b[K") {
		t.Errorf("the status line is not cleared at the end: %q", out)
	}
	var q strings.Builder
	quiet := &Progress{W: &q, Quiet: true, TTY: true}
	quiet.Start(nil, 1)
	quiet.Done(Event{Unit: Unit{Scenario: "F1", N: 1}, Record: r, Done: 1, Total: 1})
	quiet.Stop()
	if q.Len() != 0 {
		t.Errorf("quiet progress printed %q", q.String())
	}
}

func TestMergeRefusesMismatches(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	if err := PrepareOut(a, testPlan()); err != nil {
		t.Fatal(err)
	}
	q := testPlan()
	q.Seed = 9
	if err := PrepareOut(b, q); err != nil {
		t.Fatal(err)
	}
	if _, _, _, err := Merge([]string{a, b}, filepath.Join(dir, "m"), true); !errors.Is(err, ErrPlanMismatch) || !strings.Contains(err.Error(), "seed") {
		t.Errorf("different seeds: %v", err)
	}
	// The same run finished in two directories.
	c := filepath.Join(dir, "c")
	if err := PrepareOut(c, testPlan()); err != nil {
		t.Fatal(err)
	}
	u := testPlan().Units()[0]
	for _, d := range []string{a, c} {
		r := rec(u.Variant, u.Scenario, u.N, Pass, 100)
		r.Seed = u.Seed
		raw, _ := json.Marshal(r)
		os.MkdirAll(filepath.Join(d, u.Dir()), 0o777)
		os.WriteFile(filepath.Join(d, u.Dir(), RecordFile), raw, 0o666)
	}
	if _, _, _, err := Merge([]string{a, c}, filepath.Join(dir, "m2"), true); err == nil || !strings.Contains(err.Error(), "finished in both") {
		t.Errorf("overlap: %v", err)
	}
	_, recs, missing, err := Merge([]string{a}, filepath.Join(dir, "m3"), true)
	if err != nil || len(recs) != 1 || !strings.Contains(missing, "runs missing") {
		t.Fatalf("merge of one directory: %v, %d records", err, len(recs))
	}
	if _, err := os.Stat(filepath.Join(dir, "m3", u.Dir(), RecordFile)); err != nil {
		t.Error(err)
	}
}
