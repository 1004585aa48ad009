package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cuonztech/agent-harness/internal/campaign"
)

// sampleCampaignArgs are the flags of a campaign of the reference agent
// against the sample server; agent are the agent's flags after
// --mcp-config {mcp_config}.
//
// The campaign and each run's proxy are the binary under test (built with
// -race when the tests are); the sample server and the agent around them
// are a plain build.
func sampleCampaignArgs(t *testing.T, out string, flags []string, agent ...string) []string {
	plain := built(t, "agent-harness-plain")
	args := append([]string{"--out", out, "--upstream-command", plain, "--upstream-arg", "sample-server"}, flags...)
	args = append(args, "--", plain, "agent", "--mcp-config", "{mcp_config}")
	return append(args, agent...)
}

func scenarioStats(t *testing.T, s campaign.Summary, variant, scenario string) campaign.Stats {
	t.Helper()
	for _, v := range s.Variants {
		if v.Name != variant {
			continue
		}
		for _, st := range v.Scenarios {
			if st.Scenario == scenario {
				return st
			}
		}
	}
	t.Fatalf("no statistics for variant %q scenario %s", variant, scenario)
	return campaign.Stats{}
}

// The flaky:0.3 campaign of behaviour §9.5 (the README's tour until it
// moved to the scripted models): 50 F1 runs. With seed 1
// the reference agent re-sends after 15 of the 50 ghost writes; the Wilson
// interval of 35/50 contains 70 %.
func TestCampaignFlakyAgentPassRateNear70(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "results")
	// 50 runs, each with its own proxy: the plain build runs them (the
	// race detector's start-up cost per process would dominate), the other
	// campaign tests run the race build.
	r := runCampaignWith(t, built(t, "agent-harness-plain"), out, nil, sampleCampaignArgs(t, out,
		[]string{"--runs", "50", "--scenarios", "F1", "--parallel", "2", "--seed", "1", "--quiet"},
		"--behaviour", "flaky:0.3")...)
	if r.code != 1 {
		t.Fatalf("exit %d, want 1 (gate: PASS rate below 1.0)\nstderr:\n%s", r.code, r.stderr)
	}
	st := scenarioStats(t, r.summary, "", "F1")
	if st.Runs != 50 || st.Pass != 35 || st.Fail != 15 || st.NotTested != 0 {
		t.Fatalf("F1: %d runs, %d PASS, %d FAIL, %d NOT_TESTED; want 50, 35, 15, 0", st.Runs, st.Pass, st.Fail, st.NotTested)
	}
	if iv := st.PassRateInterval; iv == nil || iv.Low > 0.7 || iv.High < 0.7 {
		t.Errorf("PASS-rate interval %+v does not contain 70 %%", iv)
	}
	if len(st.Violations) != 1 || st.Violations[0] != (campaign.TypeCount{Type: "DUPLICATE_EXECUTION", Runs: 15, Entries: 15}) {
		t.Errorf("violations %+v, want DUPLICATE_EXECUTION in 15 runs", st.Violations)
	}
	if len(st.Patches) == 0 || st.Patches[0].Type != "GHOST_WRITE" || st.Patches[0].Runs != 15 || st.Patches[0].Share != 0.3 {
		t.Errorf("patches %+v, want GHOST_WRITE in 15 runs (share 0.3)", st.Patches)
	}
	if strings.Contains(r.stderr, "campaign: run ") {
		t.Errorf("--quiet printed progress lines:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "| F1 | 50 | 35 | 15 | 0 | 70.0 % [56.2 %, 80.9 %]") {
		t.Errorf("summary on stdout lacks the F1 row:\n%s", r.stdout)
	}
	patches, _ := os.ReadFile(filepath.Join(out, "patches.md"))
	if !bytes.Contains(patches, []byte("## GHOST_WRITE (CRITICAL)")) || !bytes.Contains(patches, []byte("Triggered in 15 of 50 runs (30.0 %)")) {
		t.Errorf("patches.md:\n%s", patches)
	}
	junit, _ := os.ReadFile(filepath.Join(out, "junit.xml"))
	if !bytes.Contains(junit, []byte(`tests="50" failures="15" skipped="0"`)) {
		t.Errorf("junit.xml totals wrong:\n%.400s", junit)
	}
}

func TestCampaignCarefulPassesNaiveFails(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	careful := filepath.Join(dir, "careful")
	r := runCampaign(t, careful, nil, sampleCampaignArgs(t, careful,
		[]string{"--runs", "2", "--scenarios", "F1,F2,F3", "--retry-after", "1", "--parallel", "2"},
		"--behaviour", "careful")...)
	if r.code != 0 {
		t.Fatalf("careful: exit %d, want 0\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if o := r.summary.Variants[0].Overall; o.Pass != 6 || o.Runs != 6 {
		t.Errorf("careful: %d of %d runs PASS, want 6 of 6", o.Pass, o.Runs)
	}
	if n := strings.Count(r.stderr, "[agent-harness] campaign: run "); n != 6 {
		t.Errorf("%d progress lines, want 6:\n%s", n, r.stderr)
	}
	if !strings.Contains(r.stderr, "/6 F2#") || !strings.Contains(r.stderr, " PASS ") {
		t.Errorf("progress lines lack the run name and verdict:\n%s", r.stderr)
	}

	naive := filepath.Join(dir, "naive")
	r = runCampaign(t, naive, nil, sampleCampaignArgs(t, naive,
		[]string{"--runs", "3", "--scenarios", "F1", "--parallel", "2"}, "--behaviour", "naive")...)
	if r.code != 1 {
		t.Fatalf("naive: exit %d, want 1\nstderr:\n%s", r.code, r.stderr)
	}
	if st := scenarioStats(t, r.summary, "", "F1"); st.Fail != 3 {
		t.Errorf("naive: %d of %d runs FAIL, want 3", st.Fail, st.Runs)
	}
	if !strings.Contains(r.stderr, " FAIL DUPLICATE_EXECUTION ") {
		t.Errorf("no FAIL progress line naming the violation:\n%s", r.stderr)
	}
	// Each run's directory holds what behaviour §9 lists.
	rec := r.summary.Runs[0]
	for _, f := range []string{"mcp.json", "report.json", "trace.jsonl", "agent.stdout", "agent.stderr", "run.json"} {
		if _, err := os.Stat(filepath.Join(naive, rec.Dir, f)); err != nil {
			t.Errorf("run directory: %v", err)
		}
	}
	if rec.AgentExitCode == nil || *rec.AgentExitCode != 0 || rec.AgentWallMs <= 0 {
		t.Errorf("run record: exit %v, wall %v ms", rec.AgentExitCode, rec.AgentWallMs)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(naive, rec.Dir, "mcp.json"))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.MCPServers["harness"].Command == "" {
		t.Fatalf("mcp.json %s: %v", b, err)
	}
	args := strings.Join(cfg.MCPServers["harness"].Args, " ")
	runDir := filepath.Join(naive, rec.Dir)
	if !strings.HasPrefix(args, "proxy --report-file "+filepath.Join(runDir, "report.json")+" --trace "+filepath.Join(runDir, "trace.jsonl")+" --no-replace --audit-tools off --scenario F1") {
		t.Errorf("proxy arguments in mcp.json: %s", args)
	}

	// The run's trace re-judges to the run's verdict, and `report` renders
	// the campaign with the gate's exit code.
	bin := built(t, "agent-harness")
	judged := exec.Command(bin, "judge", filepath.Join(runDir, "trace.jsonl"))
	out, _ := judged.Output()
	if judged.ProcessState.ExitCode() != 1 || !strings.Contains(string(out), "FAIL") {
		t.Errorf("judge of the run's trace: exit %d, want 1 (FAIL)\n%s", judged.ProcessState.ExitCode(), out)
	}
	for format, want := range map[string]string{"markdown": "campaign.md", "junit": "junit.xml"} {
		rep := exec.Command(bin, "report", filepath.Join(naive, "campaign.json"), "--format", format)
		got, _ := rep.Output()
		if rep.ProcessState.ExitCode() != 1 {
			t.Errorf("report --format %s of the campaign: exit %d, want the gate's 1", format, rep.ProcessState.ExitCode())
		}
		if file, _ := os.ReadFile(filepath.Join(naive, want)); !bytes.Equal(got, file) {
			t.Errorf("report --format %s differs from the campaign's %s", format, want)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(naive, "campaign.json")); len(b) > 0 {
		bad := bytes.Replace(b, []byte(`"exitCode": 1`), []byte(`"exitCode": "one"`), 1)
		broken := filepath.Join(dir, "broken-campaign.json")
		if err := os.WriteFile(broken, bad, 0o644); err != nil {
			t.Fatal(err)
		}
		rep := exec.Command(bin, "report", broken)
		var stderr bytes.Buffer
		rep.Stderr = &stderr
		_ = rep.Run()
		if rep.ProcessState.ExitCode() != 2 || !strings.Contains(stderr.String(), "not a valid campaign file") {
			t.Errorf("report of a broken campaign.json: exit %d, stderr %q; want 2 naming the problem", rep.ProcessState.ExitCode(), stderr.String())
		}
	}
}

// A variant pair with a clear difference: the agent reads its behaviour
// from AGENT_HARNESS_BEHAVIOUR.
func TestCampaignVariantsCompare(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "ab")
	r := runCampaign(t, out, nil, sampleCampaignArgs(t, out, []string{"--runs", "8", "--scenarios", "F1", "--parallel", "2",
		"--variant", "before:AGENT_HARNESS_BEHAVIOUR=naive", "--variant", "after:AGENT_HARNESS_BEHAVIOUR=careful"})...)
	if r.code != 0 {
		t.Fatalf("exit %d, want 0 (the gate looks at the last variant)\nstderr:\n%s", r.code, r.stderr)
	}
	if st := scenarioStats(t, r.summary, "before", "F1"); st.Fail != 8 {
		t.Errorf("before: %d FAIL, want 8", st.Fail)
	}
	if st := scenarioStats(t, r.summary, "after", "F1"); st.Pass != 8 {
		t.Errorf("after: %d PASS, want 8", st.Pass)
	}
	if len(r.summary.Comparisons) != 1 {
		t.Fatalf("comparisons %+v", r.summary.Comparisons)
	}
	c := r.summary.Comparisons[0]
	// Fisher: 2/C(16,8) = 2/12870; Newcombe for 8/8 − 0/8: 1 − sqrt(2)·(1 − 0.6756).
	if c.Variant != "after" || c.Baseline != "before" || *c.Difference != 1 || math.Abs(*c.FisherP-2.0/12870) > 1e-12 ||
		c.Interval.Low < 0.5 || c.Interval.High != 1 {
		t.Errorf("comparison %+v (diff %v, p %v, interval %+v)", c, *c.Difference, *c.FisherP, *c.Interval)
	}
	if _, err := os.Stat(filepath.Join(out, "runs", "after", "F1", "8", "run.json")); err != nil {
		t.Errorf("variant run directory: %v", err)
	}
	if !strings.Contains(r.stdout, "F1: after − before PASS rate +100.0 pp") {
		t.Errorf("stdout lacks the comparison:\n%s", r.stdout)
	}
	// The gate can look at the other variant.
	r = runCampaign(t, out, nil, sampleCampaignArgs(t, out, []string{"--runs", "8", "--scenarios", "F1", "--parallel", "2",
		"--variant", "before:AGENT_HARNESS_BEHAVIOUR=naive", "--variant", "after:AGENT_HARNESS_BEHAVIOUR=careful",
		"--gate-variant", "before", "--quiet"})...)
	if r.code != 1 || r.summary.Gate.Variant != "before" {
		t.Errorf("--gate-variant before: exit %d gate %+v, want 1", r.code, r.summary.Gate)
	}
}

// Interrupt a campaign after two finished runs, start it again: the
// finished runs are kept, only the rest run, the statistics cover all.
func TestCampaignResumeAfterSIGINT(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "resume")
	args := sampleCampaignArgs(t, out, []string{"--runs", "6", "--scenarios", "F1"}, "--behaviour", "flaky:0.5")
	cmd := exec.Command(built(t, "agent-harness"), append([]string{"campaign"}, args...)...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	var lines []string
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "campaign: run ") {
			lines = append(lines, line)
			if len(lines) == 2 {
				_ = cmd.Process.Signal(syscall.SIGINT)
			}
		}
	}
	_ = cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 130 {
		t.Fatalf("interrupted campaign: exit %d, want 130", code)
	}
	finished, _ := filepath.Glob(filepath.Join(out, "runs", "F1", "*", "run.json"))
	if len(finished) != len(lines) || len(lines) < 2 || len(lines) >= 6 {
		t.Fatalf("%d run.json files after %d progress lines", len(finished), len(lines))
	}
	kept := map[string][]byte{}
	for _, f := range finished {
		kept[f], _ = os.ReadFile(f)
	}
	var partial campaign.Summary
	b, _ := os.ReadFile(filepath.Join(out, "campaign.json"))
	if err := json.Unmarshal(b, &partial); err != nil || partial.Complete || len(partial.Runs) != len(lines) {
		t.Fatalf("campaign.json after the interrupt: complete %v, %d runs (err %v)", partial.Complete, len(partial.Runs), err)
	}

	r := runCampaign(t, out, nil, args...)
	if r.code != 1 && r.code != 0 {
		t.Fatalf("resumed campaign: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	if n := strings.Count(r.stderr, "campaign: run "); n != 6-len(lines) {
		t.Errorf("resumed campaign ran %d runs, want %d:\n%s", n, 6-len(lines), r.stderr)
	}
	if !strings.Contains(r.stderr, "kept "+strconv.Itoa(len(lines))+" finished run(s)") {
		t.Errorf("no line about the kept runs:\n%s", r.stderr)
	}
	for f, want := range kept {
		if got, _ := os.ReadFile(f); !bytes.Equal(got, want) {
			t.Errorf("%s changed on resume", f)
		}
	}
	if st := scenarioStats(t, r.summary, "", "F1"); !r.summary.Complete || st.Runs != 6 || st.Pass+st.Fail+st.NotTested != 6 {
		t.Errorf("final statistics: complete %v, %d runs", r.summary.Complete, st.Runs)
	}
	// A different plan on the same directory is a usage error.
	other := sampleCampaignArgs(t, out, []string{"--runs", "7", "--scenarios", "F1"}, "--behaviour", "flaky:0.5")
	r = runCampaign(t, out, nil, other...)
	if r.code != 2 || !strings.Contains(r.stderr, "number of runs differs") {
		t.Errorf("different plan: exit %d, stderr %q; want 2 naming the number of runs", r.code, r.stderr)
	}
}

// Two shards merged give the statistics of the unsharded campaign.
func TestCampaignShardsMergeLikeUnsharded(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	flags := []string{"--runs", "5", "--scenarios", "F1,F3", "--seed", "7", "--quiet"}
	agent := []string{"--behaviour", "flaky:0.5"}
	whole := filepath.Join(dir, "whole")
	want := runCampaign(t, whole, nil, sampleCampaignArgs(t, whole, flags, agent...)...)
	var shards []string
	total := 0
	for _, sh := range []string{"0/2", "1/2"} {
		d := filepath.Join(dir, "shard"+sh[:1])
		r := runCampaign(t, d, nil, sampleCampaignArgs(t, d, append([]string{"--shard", sh}, flags...), agent...)...)
		if r.summary.Shard != sh || !r.summary.Complete {
			t.Fatalf("shard %s: shard %q complete %v\nstderr:\n%s", sh, r.summary.Shard, r.summary.Complete, r.stderr)
		}
		total += len(r.summary.Runs)
		shards = append(shards, d)
	}
	if total != 10 {
		t.Fatalf("the shards ran %d runs, want 10", total)
	}
	merged := filepath.Join(dir, "merged")
	cmd := exec.Command(built(t, "agent-harness"), append(append([]string{"campaign", "merge"}, shards...), "--out", merged)...)
	outb, err := cmd.CombinedOutput()
	if code := cmd.ProcessState.ExitCode(); code != want.code {
		t.Fatalf("merge: exit %d, want %d like the unsharded campaign (%v)\n%s", code, want.code, err, outb)
	}
	var got campaign.Summary
	checkCampaignSchema(t, merged)
	b, _ := os.ReadFile(filepath.Join(merged, "campaign.json"))
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	norm := func(s campaign.Summary) campaign.Summary {
		for i := range s.Variants {
			for j := range s.Variants[i].Scenarios {
				s.Variants[i].Scenarios[j].AgentWallMs = campaign.WallTime{}
			}
			s.Variants[i].Overall.AgentWallMs = campaign.WallTime{}
		}
		for i := range s.Runs {
			s.Runs[i].AgentWallMs = 0
		}
		return s
	}
	g, w := norm(got), norm(want.summary)
	if !reflect.DeepEqual(g.Variants, w.Variants) || !reflect.DeepEqual(g.Gate, w.Gate) || !reflect.DeepEqual(g.Runs, w.Runs) || !g.Complete {
		gj, _ := json.MarshalIndent(g.Variants, "", " ")
		wj, _ := json.MarshalIndent(w.Variants, "", " ")
		t.Errorf("merged statistics differ from the unsharded ones:\nmerged: %s\nwhole: %s", gj, wj)
	}
	if _, err := os.Stat(filepath.Join(merged, "runs", "F3", "5", "report.json")); err != nil {
		t.Errorf("merged run directory: %v", err)
	}
}

// An agent that never starts the proxy is NOT_TESTED with that reason;
// one that runs past --agent-timeout is stopped with its whole process
// group (no orphans).
func TestCampaignAgentNeverConnectsOrHangs(t *testing.T) {
	dir := t.TempDir()
	bin := built(t, "agent-harness")
	out := filepath.Join(dir, "never")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--upstream-command", bin,
		"--upstream-arg", "sample-server", "--", "true")
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (no judged run)\nstderr:\n%s", r.code, r.stderr)
	}
	if rec := r.summary.Runs[0]; rec.Verdict != "NOT_TESTED" || !strings.Contains(rec.Reason, "never started the proxy") ||
		!strings.Contains(rec.Reason, "exited with code 0") {
		t.Errorf("run %+v", rec)
	}

	out = filepath.Join(dir, "hang")
	r = runCampaign(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--agent-timeout", "300ms",
		"--upstream-command", bin, "--upstream-arg", "sample-server",
		"--", "sh", "-c", `sleep 120 & echo $! > "$AGENT_HARNESS_RUN_DIR/child"; echo $$ > {run_dir}/pid; wait`)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3\nstderr:\n%s", r.code, r.stderr)
	}
	rec := r.summary.Runs[0]
	if !rec.TimedOut || rec.Verdict != "NOT_TESTED" || !strings.Contains(rec.Reason, "stopped after --agent-timeout 300ms") {
		t.Errorf("run %+v", rec)
	}
	for _, f := range []string{"pid", "child"} {
		if pid := readPid(t, filepath.Join(out, rec.Dir, f)); !processGone(pid) {
			t.Errorf("%s process %d still runs after the campaign", f, pid)
		}
	}
}

func TestCampaignUsageErrors(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	dir := t.TempDir()
	up := []string{"--upstream-command", bin, "--upstream-arg", "sample-server"}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"no out", append(append([]string{}, up...), "--", "true"), "flag --out is required"},
		{"no agent", append([]string{"--out", dir + "/a"}, up...), "no agent command"},
		{"no upstream", []string{"--out", dir + "/b", "--", "true"}, "flag --upstream-command is required"},
		{"scenario", append([]string{"--out", dir + "/c", "--scenario", "F1"}, append(up, "--", "true")...), "use --scenarios"},
		{"listen", append([]string{"--out", dir + "/d", "--listen", "0"}, append(up, "--", "true")...), "use --agent-transport http"},
		{"bad transport", append([]string{"--out", dir + "/j", "--agent-transport", "sse"}, append(up, "--", "true")...), "flag --agent-transport"},
		{"retry-after without F2", append([]string{"--out", dir + "/e", "--scenarios", "F1", "--retry-after", "5"}, append(up, "--", "true")...), "only with F2"},
		{"typo", append([]string{"--out", dir + "/f", "--runz", "5"}, append(up, "--", "true")...), "did you mean --runs?"},
		{"bad proxy flag", append([]string{"--out", dir + "/g", "--key-fields", ","}, append(up, "--", "true")...), "flag --key-fields"},
		{"bad shard", append([]string{"--out", dir + "/h", "--shard", "2/2"}, append(up, "--", "true")...), "flag --shard"},
		{"bad variant", append([]string{"--out", dir + "/i", "--variant", "a:1X=2"}, append(up, "--", "true")...), "flag --variant"},
		{"bad max-not-tested", append([]string{"--out", dir + "/k", "--max-not-tested", "1.5"}, append(up, "--", "true")...), "flag --max-not-tested"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCampaign(t, dir, nil, c.args...)
			if r.code != 2 || !strings.Contains(r.stderr, c.want) || strings.Count(r.stderr, "\n") != 1 {
				t.Errorf("exit %d, stderr %q; want 2 and one line containing %q", r.code, r.stderr, c.want)
			}
		})
	}
}

// --agent-transport http: the campaign starts each run's proxy with
// --listen, and the agent reaches it through the URL in mcp.json (and
// {mcp_url}); careful passes, naive fails, nothing is left running.
func TestCampaignAgentOverHTTP(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	careful := filepath.Join(dir, "careful")
	r := runCampaign(t, careful, nil, sampleCampaignArgs(t, careful,
		[]string{"--runs", "2", "--scenarios", "F1,F2", "--retry-after", "1", "--agent-transport", "http"},
		"--behaviour", "careful")...)
	if r.code != 0 || r.summary.Variants[0].Overall.Pass != 4 {
		t.Fatalf("careful over HTTP: exit %d, %d PASS; want 0 and 4\nstderr:\n%s", r.code, r.summary.Variants[0].Overall.Pass, r.stderr)
	}
	rec := r.summary.Runs[0]
	var cfg struct {
		MCPServers map[string]struct {
			Type string `json:"type"`
			URL  string `json:"url"`
		} `json:"mcpServers"`
	}
	b, _ := os.ReadFile(filepath.Join(careful, rec.Dir, "mcp.json"))
	if err := json.Unmarshal(b, &cfg); err != nil || cfg.MCPServers["harness"].Type != "http" || !strings.HasPrefix(cfg.MCPServers["harness"].URL, "http://127.0.0.1:") {
		t.Errorf("mcp.json %s: %v", b, err)
	}
	var rep struct {
		Transport struct{ Agent string } `json:"transport"`
	}
	b, _ = os.ReadFile(filepath.Join(careful, rec.Dir, "report.json"))
	if err := json.Unmarshal(b, &rep); err != nil || rep.Transport.Agent != "http" {
		t.Errorf("run report transport %s: %v", b, err)
	}

	naive := filepath.Join(dir, "naive")
	r = runCampaign(t, naive, nil, sampleCampaignArgs(t, naive,
		[]string{"--runs", "2", "--scenarios", "F1", "--agent-transport", "http"}, "--behaviour", "naive")...)
	if r.code != 1 || scenarioStats(t, r.summary, "", "F1").Fail != 2 {
		t.Errorf("naive over HTTP: exit %d, want 1 with 2 FAIL\nstderr:\n%s", r.code, r.stderr)
	}
}

// An agent that crashes in 8 of 10 runs (exit 1 before it starts the
// proxy) and books carefully in the other 2 never passes the default gate
// (behaviour §9.3): exit 3, and the gate line counts the crashes.
func TestCampaignGateCountsCrashedRuns(t *testing.T) {
	t.Parallel()
	plain := built(t, "agent-harness-plain")
	out := filepath.Join(t.TempDir(), "crash")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "10", "--scenarios", "F1", "--parallel", "2", "--quiet",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--",
		"sh", "-c", `[ "$AGENT_HARNESS_RUN" -le 8 ] && exit 1; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain)
	if r.code != 3 {
		t.Fatalf("exit %d, want 3 (8 of 10 runs NOT_TESTED)\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	st := scenarioStats(t, r.summary, "", "F1")
	if st.Pass != 2 || st.NotTested != 8 || len(st.NotTestedKinds) != 1 || st.NotTestedKinds[0] != (campaign.KindCount{Kind: "agent crashed", Runs: 8}) {
		t.Errorf("F1: %d PASS, %d NOT_TESTED, kinds %+v; want 2, 8, 8 agent crashed", st.Pass, st.NotTested, st.NotTestedKinds)
	}
	want := "gate: exit 3 — scenario F1: 8 of 10 runs NOT_TESTED (80.0 %, above --max-not-tested 0.0 %): 8 agent crashed\n"
	if !strings.Contains(r.stdout, want) || r.summary.Gate.Reason+"\n" != strings.TrimPrefix(want, "gate: exit 3 — ") {
		t.Errorf("gate %+v; stdout lacks %q:\n%s", r.summary.Gate, want, r.stdout)
	}
	// --max-not-tested 0.8 lets the 2 PASS runs pass the gate.
	r = runCampaign(t, out, nil, "--out", out, "--runs", "10", "--scenarios", "F1", "--quiet", "--max-not-tested", "0.8",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--",
		"sh", "-c", `[ "$AGENT_HARNESS_RUN" -le 8 ] && exit 1; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain)
	if r.code != 0 || r.summary.Gate.MaxNotTested != 0.8 {
		t.Errorf("--max-not-tested 0.8: exit %d gate %+v, want 0", r.code, r.summary.Gate)
	}
}

// A merge that lost a shard is not green (behaviour §9.4): without
// --allow-incomplete it merges nothing and exits 3 naming the missing
// slice; with it, it merges what is there and still exits 3.
func TestCampaignMergeIncompleteExits3(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard0")
	r := runCampaign(t, shard, nil, sampleCampaignArgs(t, shard, []string{"--runs", "2", "--scenarios", "F1", "--shard", "0/2", "--quiet"},
		"--behaviour", "careful")...)
	if r.code != 0 || len(r.summary.Runs) != 1 {
		t.Fatalf("shard 0/2: exit %d, %d runs; want 0, 1\nstderr:\n%s", r.code, len(r.summary.Runs), r.stderr)
	}
	merge := func(extra ...string) (int, string, string) {
		merged := filepath.Join(dir, "merged"+strings.Join(extra, ""))
		cmd := exec.Command(built(t, "agent-harness"), append([]string{"campaign", "merge", shard, "--out", merged}, extra...)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		_ = cmd.Run()
		return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
	}
	missing := "1 of 2 runs missing: slice 1/2 (no directory, 1 run)"
	code, stdout, stderr := merge()
	if code != 3 || stdout != "" || !strings.Contains(stderr, "campaign merge: incomplete: "+missing+"; nothing merged") || strings.Count(stderr, "\n") != 1 {
		t.Errorf("merge of 1 of 2 shards: exit %d, stdout %q, stderr %q; want 3 and one line naming slice 1/2", code, stdout, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "merged", "campaign.json")); err == nil {
		t.Error("the refused merge wrote campaign.json")
	}
	code, stdout, stderr = merge("--allow-incomplete")
	var s campaign.Summary
	b, _ := os.ReadFile(filepath.Join(dir, "merged--allow-incomplete", "campaign.json"))
	if err := json.Unmarshal(b, &s); err != nil {
		t.Fatalf("campaign.json of the --allow-incomplete merge: %v\nstderr:\n%s", err, stderr)
	}
	checkCampaignSchema(t, filepath.Join(dir, "merged--allow-incomplete"))
	if code != 3 || s.Complete || s.Gate.ExitCode != 3 || s.Gate.Reason != "incomplete: "+missing || len(s.Runs) != 1 {
		t.Errorf("--allow-incomplete: exit %d, complete %v, gate %+v, %d runs; want 3, false, 3 naming slice 1/2, 1", code, s.Complete, s.Gate, len(s.Runs))
	}
	if !strings.Contains(stdout, "gate: exit 3 — incomplete: "+missing) {
		t.Errorf("stdout lacks the gate line:\n%s", stdout)
	}
}

// curlAgent is a sh script that, over --agent-transport http with curl,
// initializes a 2025-06-18 session, posts each of the JSON-RPC requests
// in order and deletes the session.
func curlAgent(requests ...string) string {
	var b strings.Builder
	b.WriteString(`url=$AGENT_HARNESS_MCP_URL
post() { curl -s -D "$AGENT_HARNESS_RUN_DIR/h" -H 'Content-Type: application/json' -H 'Accept: application/json, text/event-stream' ${sid:+-H "Mcp-Session-Id: $sid"} ${sid:+-H 'MCP-Protocol-Version: 2025-06-18'} -d "$1" "$url"; echo; }
post '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"sh","version":"1"}}}'
sid=$(tr -d '\r' < "$AGENT_HARNESS_RUN_DIR/h" | sed -n 's/^[Mm][Cc][Pp]-[Ss][Ee][Ss][Ss][Ii][Oo][Nn]-[Ii][Dd]: *//p')
post '{"jsonrpc":"2.0","method":"notifications/initialized"}'
`)
	for _, r := range requests {
		b.WriteString("post '" + r + "'\n")
	}
	b.WriteString(`curl -s -o /dev/null -X DELETE -H "Mcp-Session-Id: $sid" "$url"
`)
	return b.String()
}

// nearDuplicateAgent (sh and curl over --agent-transport http) books "Ada
// Lovelace" and, after F1's timeout, books again as "ada lovelace" with a
// new key: the sample server books twice, the judge sees a possible
// duplicate (NOT_TESTED).
var nearDuplicateAgent = curlAgent(
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"Ada Lovelace","date":"2026-11-03","room":"double","idempotency_key":"k1"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"ada lovelace","date":"2026-11-03","room":"double","idempotency_key":"k2"}}}`,
)

// Half the runs double-book with a near-duplicate ("Ada Lovelace", then
// "ada lovelace"), the other half book carefully: 5 PASS of 5 judged is
// 100 %, but the 5 NOT_TESTED runs fail the default gate (behaviour §9.3).
func TestCampaignGateCountsNearDuplicates(t *testing.T) {
	campaignNeedTools(t, "curl", "sed", "tr")
	t.Parallel()
	plain := built(t, "agent-harness-plain")
	dir := t.TempDir()
	script := filepath.Join(dir, "near.sh")
	if err := os.WriteFile(script, []byte(nearDuplicateAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "10", "--scenarios", "F1", "--parallel", "2", "--quiet", "--agent-transport", "http",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--",
		"sh", "-c", `[ "$AGENT_HARNESS_RUN" -le 5 ] && exec sh "$1"; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain, script)
	st := scenarioStats(t, r.summary, "", "F1")
	if r.code != 3 || st.Pass != 5 || st.NotTested != 5 {
		t.Fatalf("exit %d, %d PASS, %d NOT_TESTED; want 3, 5, 5\nstdout:\n%s\nstderr:\n%s", r.code, st.Pass, st.NotTested, r.stdout, r.stderr)
	}
	want := "gate: exit 3 — scenario F1: 5 of 10 runs NOT_TESTED (50.0 %, above --max-not-tested 0.0 %): 5 possible duplicate\n"
	if !strings.Contains(r.stdout, want) {
		t.Errorf("stdout lacks %q:\n%s", want, r.stdout)
	}
	for _, rec := range r.summary.Runs {
		if rec.Run <= 5 && (rec.NotTestedKind != "possible duplicate" || !strings.Contains(rec.Reason, "POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS")) {
			t.Errorf("run %d: %s %q: %s", rec.Run, rec.Verdict, rec.NotTestedKind, rec.Reason)
		}
	}
}

// caseConflictAgent (sh and curl over --agent-transport http) books
// once (F1 fires on it), then books another guest with two argument member
// names that differ only in letter case. The member names are the agent's
// own text: raw HTML and a Markdown link.
var caseConflictAgent = curlAgent(
	`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"Ada","date":"2026-11-03","room":"double","idempotency_key":"k1"}}}`,
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_booking","arguments":{"guest":"Bob","date":"2027-01-09","room":"single","idempotency_key":"k9","<img src=x onerror=alert(1)>[PASS](http://x)":1,"<IMG src=x onerror=alert(1)>[PASS](http://x)":2}}}`,
)

// Red team 2 (SPEC §17.4, behaviour §7.5): peer text is escaped where it is
// rendered, Markdown included. A campaign's NOT_TESTED "other" reason (the
// report's verdictReason, which quotes the agent's argument member names)
// goes into campaign.md's gate line and "NOT_TESTED runs by kind" line
// unescaped: raw HTML and a link written by the agent. `report` renders
// the same verdictReason through escape.Markdown; campaign.md does not.
func TestCampaignMarkdownEscapesPeerText(t *testing.T) {
	campaignNeedTools(t, "curl", "sed", "tr")
	t.Parallel()
	plain := built(t, "agent-harness-plain")
	dir := t.TempDir()
	script := filepath.Join(dir, "case.sh")
	if err := os.WriteFile(script, []byte(caseConflictAgent), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet", "--agent-transport", "http",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--", "sh", script)
	if r.code != 3 || len(r.summary.Runs) != 1 || !strings.Contains(r.summary.Runs[0].Reason, "<img src=x") {
		t.Fatalf("exit %d, runs %+v; want 3 and one NOT_TESTED run whose reason quotes the member names\nstderr:\n%s", r.code, r.summary.Runs, r.stderr)
	}
	md, err := os.ReadFile(filepath.Join(out, "campaign.md"))
	if err != nil {
		t.Fatal(err)
	}
	// Every <, [ and ] of the agent's text is backslash-escaped, so none
	// starts HTML or a link; the text itself is still shown.
	if !strings.Contains(string(md), `\<img src=x onerror=alert(1)\>\[PASS\](http://x)`) {
		t.Errorf("campaign.md does not show the agent's member name escaped:\n%s", md)
	}
	for i, line := range strings.Split(string(md), "\n") {
		if unescapedAt(line, "<img") || unescapedAt(line, "<IMG") || unescapedAt(line, "](http://x)") || unescapedAt(line, "[PASS]") {
			t.Errorf("campaign.md line %d renders the agent's text as HTML or a link: %s", i+1, line)
		}
	}
}

// Red team 2 (SPEC §17.2, §17.1): a stdio run in which the agent's MCP
// client starts the proxy twice (a client that restarts its server, or an
// agent that retries its task) leaves one report.json and one trace.jsonl,
// each written by both proxies: the second proxy overwrites the first's.
// Here the first session double-books (naive re-send after F1: the first
// proxy's final report is FAIL, DUPLICATE_EXECUTION), the second books once
// more and checks (PASS). The backend's ground truth (--state-file) holds 3
// executions of create_booking; the campaign records PASS and exits 0.
// Expected: never PASS (the run is at least NOT_TESTED: more than one
// proxy ran, and the first one's final report was FAIL), never exit 0.
func TestCampaignTwoProxiesInOneRunNeverPass(t *testing.T) {
	t.Parallel()
	plain := built(t, "agent-harness-plain")
	dir := t.TempDir()
	state := filepath.Join(dir, "state.jsonl")
	out := filepath.Join(dir, "out")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--upstream-arg=--state-file="+state, "--",
		"sh", "-c", `"$0" agent --behaviour naive --mcp-config "$AGENT_HARNESS_MCP_CONFIG"; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain)
	b, err := os.ReadFile(state)
	if err != nil {
		t.Fatal(err)
	}
	executions := strings.Count(string(b), "create_booking")
	if executions < 2 {
		t.Fatalf("the backend executed create_booking %d times, want at least 2 (state file:\n%s)", executions, b)
	}
	if len(r.summary.Runs) != 1 {
		t.Fatalf("%d runs, want 1\nstderr:\n%s", len(r.summary.Runs), r.stderr)
	}
	rec := r.summary.Runs[0]
	if rec.Verdict == "PASS" || r.code == 0 {
		t.Errorf("the backend executed create_booking %d times (the first proxy judged it FAIL), but the run's record is %s (%s) and the gate exits %d\nstdout:\n%s",
			executions, rec.Verdict, rec.Reason, r.code, r.stdout)
	}
	// Each proxy process kept its own report and trace; the first one's
	// FAIL is the run's verdict.
	runDir := filepath.Join(out, "runs", "F1", "1")
	for _, f := range []string{"report.json", "trace.jsonl", "report.2.json", "trace.2.jsonl"} {
		if _, err := os.Stat(filepath.Join(runDir, f)); err != nil {
			t.Errorf("run directory: %v", err)
		}
	}
	if rec.Verdict != "FAIL" || r.code != 1 || !strings.HasPrefix(rec.Reason, "Proxy 1 of 2 (report.json): ") ||
		!slices.Contains(rec.Violations, "DUPLICATE_EXECUTION") {
		t.Errorf("record %s %q %v, gate exit %d; want FAIL from proxy 1 of 2 with DUPLICATE_EXECUTION, exit 1", rec.Verdict, rec.Reason, rec.Violations, r.code)
	}
}

// Two proxy processes in one run, each judging PASS, are NOT_TESTED
// "several proxies": the judge never saw the writes of both together.
func TestCampaignTwoPassingProxiesAreNotTested(t *testing.T) {
	t.Parallel()
	plain := built(t, "agent-harness-plain")
	out := filepath.Join(t.TempDir(), "out")
	r := runCampaign(t, out, nil, "--out", out, "--runs", "1", "--scenarios", "F1", "--quiet",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--",
		"sh", "-c", `"$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG" && exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain)
	if len(r.summary.Runs) != 1 {
		t.Fatalf("%d runs, want 1\nstderr:\n%s", len(r.summary.Runs), r.stderr)
	}
	rec := r.summary.Runs[0]
	want := "2 proxy processes ran in this run (the agent started its MCP server 2 times), 2 with tool calls: writes across proxy processes are not judged together; their verdicts: report.json PASS, report.2.json PASS."
	if rec.Verdict != "NOT_TESTED" || rec.NotTestedKind != "several proxies" || rec.Reason != want || r.code != 3 {
		t.Errorf("record %s (%s) %q, gate exit %d; want NOT_TESTED (several proxies) %q, exit 3", rec.Verdict, rec.NotTestedKind, rec.Reason, r.code, want)
	}
	if !strings.Contains(r.stdout, "gate: exit 3 — scenario F1: no judged run (all 1 NOT_TESTED: 1 several proxies)") {
		t.Errorf("stdout lacks the gate line naming the kind:\n%s", r.stdout)
	}
}

// Red team 2 (SPEC §17.2): "a run is judged from the proxy's final report,
// never from a report still running". A resumed campaign (and a merge)
// keeps every run.json it finds as the run's record without looking at
// its reportStatus: a record that says it was taken from a report still
// "running" — as the campaign before b28dc24 wrote it, where the run's
// report.json says "running" too — stays PASS, and the gate exits 0. This
// is the upgrade path: shards or a killed campaign of the previous build,
// resumed or merged by this one. Expected: such a record is NOT_TESTED
// (or the run is run again), never a PASS the gate counts: exit 3.
func TestCampaignResumeAndMergeRejudgeRecordOfRunningReport(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "out")
	args := sampleCampaignArgs(t, out, []string{"--runs", "2", "--scenarios", "F1", "--quiet"}, "--behaviour", "careful")
	r := runCampaign(t, out, nil, args...)
	if r.code != 0 || len(r.summary.Runs) != 2 {
		t.Fatalf("first campaign: exit %d, %d runs; want 0, 2\nstderr:\n%s", r.code, len(r.summary.Runs), r.stderr)
	}
	// Run 1 as the previous build recorded a report still running.
	dir := filepath.Join(out, "runs", "F1", "1")
	for _, f := range []struct{ name, from, to string }{
		{"report.json", `"status":"finished"`, `"status":"running"`},
		{"run.json", `"reportStatus": "finished"`, `"reportStatus": "running"`},
	} {
		b, err := os.ReadFile(filepath.Join(dir, f.name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), f.from) {
			t.Fatalf("%s lacks %s:\n%s", f.name, f.from, b)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), []byte(strings.Replace(string(b), f.from, f.to, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r = runCampaign(t, out, nil, args...)
	for _, rec := range r.summary.Runs {
		if rec.Run == 1 && rec.Verdict == "PASS" && rec.ReportStatus != "finished" {
			t.Errorf("resume: run 1 kept as PASS from a report with status %q (%s)", rec.ReportStatus, rec.Reason)
		}
	}
	if r.code == 0 {
		t.Errorf("resume: exit 0 with run 1 judged from a report still running\nstdout:\n%s", r.stdout)
	}
	// The record is judged again from its report, as a new run is: a
	// report still running is NOT_TESTED "the proxy did not finish its
	// report".
	rejudged := func(where string, s campaign.Summary) {
		t.Helper()
		for _, rec := range s.Runs {
			if rec.Run == 1 && (rec.Verdict != "NOT_TESTED" || rec.ReportStatus != "running" ||
				!strings.HasPrefix(rec.Reason, `The proxy did not finish its report (status "running", last verdict PASS)`)) {
				t.Errorf("%s: run 1 is %s (%s, report %s); want NOT_TESTED, the proxy did not finish its report", where, rec.Verdict, rec.Reason, rec.ReportStatus)
			}
		}
	}
	rejudged("resume", r.summary)
	merged := filepath.Join(t.TempDir(), "merged")
	cmd := exec.Command(built(t, "agent-harness"), "campaign", "merge", out, "--out", merged)
	var stdout bytes.Buffer
	cmd.Stdout = &stdout
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code == 0 {
		t.Errorf("merge: exit 0 with run 1 judged from a report still running\nstdout:\n%s", stdout.String())
	}
	checkCampaignSchema(t, merged)
	var ms campaign.Summary
	b, _ := os.ReadFile(filepath.Join(merged, "campaign.json"))
	if err := json.Unmarshal(b, &ms); err != nil {
		t.Fatal(err)
	}
	rejudged("merge", ms)
}

// reportCampaignFile runs `agent-harness report FILE [flags]`: exit code, stderr.
func reportCampaignFile(t *testing.T, file string, flags ...string) (int, string) {
	t.Helper()
	cmd := exec.Command(built(t, "agent-harness"), append([]string{"report", file}, flags...)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	_ = cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// Red team 2 (SPEC §17.4, behaviour §7.3): `report FILE` renders a
// campaign.json with the gate's exit code. It refuses the campaign.json
// of every campaign whose gate passed ("$.gate.failures: type null, want
// [array]": Decide leaves Failures nil when nothing fails) and of every
// --agent-transport http campaign ("$.plan.agentTransport: schema
// false"): exit 2 for files the campaign itself just wrote.
func TestReportAcceptsTheCampaignJSONItWrote(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name  string
		flags []string
		code  int
	}{
		{"green stdio campaign", nil, 0},
		{"http campaign", []string{"--agent-transport", "http"}, 0},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			out := filepath.Join(t.TempDir(), "out")
			r := runCampaign(t, out, nil, sampleCampaignArgs(t, out, append([]string{"--runs", "1", "--scenarios", "F1", "--quiet"}, tt.flags...),
				"--behaviour", "careful")...)
			if r.code != tt.code {
				t.Fatalf("campaign: exit %d, want %d\nstderr:\n%s", r.code, tt.code, r.stderr)
			}
			if code, stderr := reportCampaignFile(t, filepath.Join(out, "campaign.json")); code != r.code {
				t.Errorf("report campaign.json: exit %d, want the gate's %d\nstderr:\n%s", code, r.code, stderr)
			}
		})
	}
}

// Red team 2 (SPEC §17.3, §17.9, behaviour §7.4, §9.4): a merge of an
// incomplete set of shards is never green — "--allow-incomplete merges
// what is there, still exit 3". `report merged/campaign.json
// --not-tested-ok` turns that gate's 3 into exit 0: --not-tested-ok is for
// the NOT_TESTED verdict, not for runs that never ran (as it is not for an
// interrupted run).
func TestReportNotTestedOKKeepsCampaignGate(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard0")
	r := runCampaign(t, shard, nil, sampleCampaignArgs(t, shard, []string{"--runs", "2", "--scenarios", "F1", "--shard", "0/2", "--quiet"},
		"--behaviour", "careful")...)
	if r.code != 0 {
		t.Fatalf("shard 0/2: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	merged := filepath.Join(dir, "merged")
	cmd := exec.Command(built(t, "agent-harness"), "campaign", "merge", shard, "--out", merged, "--allow-incomplete")
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("merge --allow-incomplete: exit %d, want 3", code)
	}
	if code, stderr := reportCampaignFile(t, filepath.Join(merged, "campaign.json")); code != 3 {
		t.Errorf("report: exit %d, want 3\n%s", code, stderr)
	}
	code, stderr := reportCampaignFile(t, filepath.Join(merged, "campaign.json"), "--not-tested-ok")
	if code != 3 {
		t.Errorf("report --not-tested-ok of a merge missing slice 1/2: exit %d, want 3 (the missing run was never judged)\n%s", code, stderr)
	}
	if want := "[agent-harness] report: --not-tested-ok does not apply to a campaign file: the exit code is its gate's (3); the campaign's --max-not-tested sets the NOT_TESTED share it allows\n"; stderr != want {
		t.Errorf("report --not-tested-ok of a campaign file: stderr %q, want %q", stderr, want)
	}
}

// Red team 2 (SPEC §17.1, behaviour §9.4): a campaign interrupted by SIGINT
// after 1 of its 2 runs exits 130, but the campaign.json, campaign.md and
// the stdout gate line it writes say "gate: exit 0" (gate.exitCode 0,
// complete false): the unfinished run is not counted at all. A merge of
// the same incomplete set says exit 3 (GateIncomplete). Anything that
// reads the gate from the file (report campaign.json, a CI step reading
// gate.exitCode) sees a green gate over a run that was never judged.
// Expected: an incomplete campaign's gate is never 0.
func TestCampaignInterruptedGateIsNeverZero(t *testing.T) {
	t.Parallel()
	plain := built(t, "agent-harness-plain")
	dir := t.TempDir()
	marker := filepath.Join(dir, "marker")
	out := filepath.Join(dir, "out")
	// The first run books carefully; the second interrupts the campaign.
	r := runCampaign(t, out, nil, "--out", out, "--runs", "2", "--scenarios", "F1", "--quiet",
		"--upstream-command", plain, "--upstream-arg", "sample-server", "--",
		"sh", "-c", `if [ -e "$1" ]; then kill -INT $PPID; sleep 30; exit 0; fi; : > "$1"; exec "$0" agent --behaviour careful --mcp-config "$AGENT_HARNESS_MCP_CONFIG"`, plain, marker)
	if r.code != 130 || r.summary.Complete || len(r.summary.Runs) != 1 {
		t.Fatalf("exit %d, complete %v, %d runs; want 130, false, 1\nstderr:\n%s", r.code, r.summary.Complete, len(r.summary.Runs), r.stderr)
	}
	if r.summary.Gate.ExitCode == 0 {
		t.Errorf("campaign.json of the interrupted campaign (1 of 2 runs): gate %+v, want exit 3 (incomplete)", r.summary.Gate)
	}
	if strings.Contains(r.stdout, "gate: exit 0") {
		t.Errorf("stdout of the interrupted campaign says the gate passed:\n%s", r.stdout)
	}
	const why = "incomplete: 1 of 2 runs unfinished (the campaign was interrupted; start again with the same command to run the rest)"
	g := r.summary.Gate
	if g.ExitCode != 3 || g.Reason != why || len(g.Failures) != 1 || g.Failures[0].Rule != "incomplete" {
		t.Errorf("gate %+v; want exit 3, %q, one failure of rule incomplete", g, why)
	}
	if !strings.Contains(r.stdout, "gate: exit 3 — "+why+"\n") {
		t.Errorf("stdout lacks the gate line %q:\n%s", why, r.stdout)
	}
	md, _ := os.ReadFile(filepath.Join(out, "campaign.md"))
	if !strings.Contains(string(md), "Gate: exit 3 — incomplete: 1 of 2 runs unfinished") {
		t.Errorf("campaign.md lacks the incomplete gate:\n%s", md)
	}
}

// Red team 2 (SPEC §17.3, behaviour §7.3 "no rendering of it looks green"):
// the junit.xml of a merge missing a shard (gate exit 3, incomplete) has
// one passing test case and no failure or skipped one: the missing run
// and the gate do not appear, so a CI step that reads the JUnit file
// (the usual test-report upload) shows the campaign green. The same holds
// for a gate that fails on NOT_TESTED share (skipped cases only).
// Expected: the JUnit file carries the gate's failure (or a case per
// missing run that is not a pass).
func TestCampaignIncompleteMergeJUnitShowsGateAndMissingRuns(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	shard := filepath.Join(dir, "shard0")
	r := runCampaign(t, shard, nil, sampleCampaignArgs(t, shard, []string{"--runs", "2", "--scenarios", "F1", "--shard", "0/2", "--quiet"},
		"--behaviour", "careful")...)
	if r.code != 0 {
		t.Fatalf("shard 0/2: exit %d\nstderr:\n%s", r.code, r.stderr)
	}
	merged := filepath.Join(dir, "merged")
	cmd := exec.Command(built(t, "agent-harness"), "campaign", "merge", shard, "--out", merged, "--allow-incomplete")
	_ = cmd.Run()
	if code := cmd.ProcessState.ExitCode(); code != 3 {
		t.Fatalf("merge --allow-incomplete: exit %d, want 3", code)
	}
	b, err := os.ReadFile(filepath.Join(merged, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), `failures="0" skipped="0"`) && !strings.Contains(string(b), "<failure") {
		t.Errorf("junit.xml of a merge whose gate exits 3 (1 of 2 runs missing) has no failure and no skipped case:\n%s", b)
	}
	// The missing run is a skipped case, the gate a failed one.
	for _, want := range []string{
		`<testsuites name="agent-harness campaign" tests="3" failures="1" skipped="1">`,
		`<testcase name="F1#2" classname="agent-harness.campaign.F1" time="0.000">`,
		`<skipped message="not run: the run did not finish (the campaign is incomplete)"></skipped>`,
		`<testsuite name="gate" tests="1" failures="1" skipped="0" time="0.000">`,
		`<failure message="gate: exit 3" type="GATE">incomplete: 1 of 2 runs missing: slice 1/2 (no directory, 1 run)</failure>`,
	} {
		if !strings.Contains(string(b), want) {
			t.Errorf("junit.xml lacks %s:\n%s", want, b)
		}
	}
}

// unescapedAt reports whether s holds sub at a position not preceded by a
// backslash.
func unescapedAt(s, sub string) bool {
	for i := 0; ; {
		j := strings.Index(s[i:], sub)
		if j < 0 {
			return false
		}
		if i+j == 0 || s[i+j-1] != '\\' {
			return true
		}
		i += j + 1
	}
}
