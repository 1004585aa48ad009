package campaign

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

const (
	passReport    = `{"status":"finished","verdict":"PASS","report":{"verdictReason":"Fine.","coverage":{"calls":{"total":2,"write":1}}},"score":{"total":100}}`
	failReport    = `{"status":"finished","verdict":"FAIL","report":{"verdictReason":"Twice.","violations":[{"type":"DUPLICATE_EXECUTION"}],"coverage":{"calls":{"total":2,"write":2}}},"score":{"total":0},"patches":[{"type":"GHOST_WRITE","severity":"CRITICAL","trigger":"t","text":"x"}]}`
	idleReport    = `{"status":"finished","verdict":"NOT_TESTED","report":{"verdictReason":"No calls.","coverage":{"calls":{"total":0}}}}`
	runningReport = `{"status":"running","verdict":"PASS","report":{"verdictReason":"So far.","coverage":{"calls":{"total":1,"write":1}}},"score":{"total":100}}`
)

// f1Plan is a plan of runs runs of F1, no variants.
func f1Plan(runs int) *Plan {
	p := testPlan()
	p.Scenarios, p.Runs, p.Variants = []string{"F1"}, runs, []Variant{}
	return p
}

// A run whose agent started more than one proxy (report.json,
// report.2.json …, behaviour §9.1) is FAIL when one proxy's final report
// is FAIL, else NOT_TESTED "several proxies" — never PASS.
func TestJudgeRunSeveralProxies(t *testing.T) {
	zero := 0
	for _, c := range []struct {
		name    string
		reports []string // report.json, report.2.json, …
		verdict string
		kind    string
		reason  string
		status  string
	}{
		{"one proxy", []string{passReport}, Pass, "", "Fine.", "finished"},
		{"second proxy FAIL", []string{passReport, failReport}, Fail, "", "Proxy 2 of 2 (report.2.json): Twice.", "finished"},
		{"first of three FAIL", []string{failReport, passReport, passReport}, Fail, "", "Proxy 1 of 3 (report.json): Twice.", "finished"},
		{"two PASS", []string{passReport, passReport}, NotTested, KindSeveralProxies,
			"2 proxy processes ran in this run (the agent started its MCP server 2 times), 2 with tool calls: writes across proxy processes are not judged together; their verdicts: report.json PASS, report.2.json PASS.", "finished"},
		{"PASS and running", []string{passReport, runningReport}, NotTested, KindSeveralProxies,
			"their verdicts: report.json PASS, report.2.json NOT_TESTED.", "running"},
		{"PASS and an empty claim", []string{passReport, " "}, NotTested, KindSeveralProxies,
			"their verdicts: report.json PASS, report.2.json NOT_TESTED.", ""},
		// A proxy whose final report counts no call (a client that starts
		// its server once to list the tools) is left out.
		{"idle proxy, then PASS", []string{idleReport, passReport}, Pass, "",
			"Fine. (2 proxy processes ran; only report.2.json had tool calls, the others finished without any.)", "finished"},
		{"idle proxy, then FAIL", []string{idleReport, failReport}, Fail, "",
			"Twice. (2 proxy processes ran; only report.2.json had tool calls, the others finished without any.)", "finished"},
		{"two idle proxies", []string{idleReport, idleReport}, NotTested, KindNoWrite,
			"The agent called no tool; it exited with code 0. (2 proxy processes ran; only report.json had tool calls, the others finished without any.)", "finished"},
		{"idle, PASS, PASS", []string{idleReport, passReport, passReport}, NotTested, KindSeveralProxies,
			"3 proxy processes ran in this run (the agent started its MCP server 3 times), 2 with tool calls: writes across proxy processes are not judged together; their verdicts: report.2.json PASS, report.3.json PASS.", "finished"},
		{"idle, PASS, FAIL", []string{idleReport, passReport, failReport}, Fail, "", "Proxy 3 of 3 (report.3.json): Twice.", "finished"},
		{"running without calls counts", []string{`{"status":"running","verdict":"NOT_TESTED","report":{"verdictReason":"-","coverage":{"calls":{"total":0}}}}`, passReport},
			NotTested, KindSeveralProxies, "their verdicts: report.json NOT_TESTED, report.2.json PASS.", "running"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			for i, body := range c.reports {
				name := ReportFile
				if i > 0 {
					name = "report." + string(rune('1'+i)) + ".json"
				}
				if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			// Not reports: the writer's temporary files, other names.
			for _, other := range []string{"report.json.123.456.tmp", "report.02.json", "report.x.json"} {
				os.WriteFile(filepath.Join(dir, other), []byte(failReport), 0o666)
			}
			rec := Record{Violations: []string{}, Observations: []string{}, Patches: []Patch{}}
			judgeRun(&rec, dir, agentExit{code: &zero}, time.Second)
			if rec.Verdict != c.verdict || rec.NotTestedKind != c.kind || !strings.HasSuffix(rec.Reason, c.reason) || rec.ReportStatus != c.status {
				t.Errorf("got %s (%s) %q report %q; want %s (%s) ending %q report %q", rec.Verdict, rec.NotTestedKind, rec.Reason, rec.ReportStatus,
					c.verdict, c.kind, c.reason, c.status)
			}
			if c.verdict == Fail && (len(rec.Violations) != 1 || len(rec.Patches) != 1 || rec.Score == nil || *rec.Score != 0) {
				t.Errorf("FAIL record: violations %v, patches %v, score %v; want the failing report's", rec.Violations, rec.Patches, rec.Score)
			}
			if c.verdict == NotTested && rec.Score != nil {
				t.Errorf("NOT_TESTED record with score %d", *rec.Score)
			}
		})
	}
}

// A record whose verdict was taken from a report that was not finished
// (as the build before b28dc24 wrote it) is judged again from the run's
// report files when a resume or merge loads it (behaviour §9.4).
func TestLoadRecordRejudgesRecordOfUnfinishedReport(t *testing.T) {
	p := testPlan()
	u := p.Units()[0]
	zero := 0
	for _, c := range []struct {
		name, report, status string
		verdict, reason      string
	}{
		{"report still running", runningReport, "running", NotTested, `The proxy did not finish its report (status "running", last verdict PASS); the agent exited with code 0.`},
		{"report finished since", failReport, "running", Fail, "Twice."},
		{"finished record kept", runningReport, "finished", Pass, "kept"},
	} {
		t.Run(c.name, func(t *testing.T) {
			out := t.TempDir()
			dir := filepath.Join(out, u.Dir())
			os.MkdirAll(dir, 0o777)
			os.WriteFile(filepath.Join(dir, ReportFile), []byte(c.report), 0o666)
			score := 100
			old := Record{Variant: u.Variant, Scenario: u.Scenario, Run: u.N, Seed: u.Seed, Dir: u.Dir(), Verdict: Pass, Reason: "kept",
				Score: &score, ReportStatus: c.status, AgentExitCode: &zero, AgentWallMs: 12}
			b, _ := json.Marshal(old)
			os.WriteFile(filepath.Join(dir, RecordFile), b, 0o666)
			got, ok := LoadRecord(out, u)
			if !ok || got.Verdict != c.verdict || got.Reason != c.reason || got.AgentWallMs != 12 {
				t.Errorf("LoadRecord: ok %v, %s %q wall %v; want %s %q wall 12", ok, got.Verdict, got.Reason, got.AgentWallMs, c.verdict, c.reason)
			}
		})
	}
}

// gate.failures is an array also when the gate passes (campaign.json's
// schema requires it; `report` refused every green campaign's file).
func TestDecidePassingGateHasFailuresArray(t *testing.T) {
	p := f1Plan(1)
	s := Summarize(p, []Record{rec("", "F1", 1, Pass, 100)}, func(string, string) int { return 1 })
	s.Gate = Decide(&s, "", 1, 0)
	b, _ := json.Marshal(s.Gate)
	if s.Gate.ExitCode != 0 || !strings.Contains(string(b), `"failures":[]`) {
		t.Errorf("gate %s; want exit 0 and failures []", b)
	}
	b, _ = json.Marshal(s)
	if _, err := ParseSummary(b); err != nil {
		t.Errorf("the summary of a green campaign does not validate: %v", err)
	}
}

// junit.xml always has a gate case: a failure unless the gate exits 0.
func TestJUnitGateCase(t *testing.T) {
	p := f1Plan(1)
	s := Summarize(p, []Record{rec("", "F1", 1, Pass, 100)}, func(string, string) int { return 1 })
	s.Complete = true
	s.Gate = Decide(&s, "", 1, 0)
	green := string(JUnit(&s))
	if !strings.Contains(green, `<testsuites name="agent-harness campaign" tests="2" failures="0" skipped="0">`) ||
		!strings.Contains(green, `<testcase name="gate" classname="agent-harness.campaign.gate" time="0.000"></testcase>`) {
		t.Errorf("green campaign's junit.xml:\n%s", green)
	}
	s.Gate = Decide(&s, "", 1, 0)
	s.Gate.ExitCode, s.Gate.Reason = 3, "scenario F1: \x1b[31mred"
	red := string(JUnit(&s))
	if !strings.Contains(red, `<failure message="gate: exit 3" type="GATE">scenario F1: \x1b[31mred</failure>`) {
		t.Errorf("failing gate's junit.xml:\n%s", red)
	}
}

// Peer text in reasons and types is escaped in campaign.md (Markdown), on
// the progress lines (stderr) and in junit.xml (behaviour §7.5).
func TestCampaignRenderingsEscapePeerText(t *testing.T) {
	peer := "<b>x</b>[PASS](http://x)\n# head\x1b[2J"
	p := f1Plan(2)
	fail := rec("", "F1", 2, Fail, 0, peer)
	fail.Reason = peer
	fail.Patches = []Patch{{Type: peer, Severity: "HIGH", Trigger: peer, Text: "t"}}
	s := Summarize(p, []Record{notTested("F1", 1, KindOther, peer), fail}, func(string, string) int { return 2 })
	s.Complete = true
	s.Gate = Decide(&s, "", 1, 0)
	md := Markdown(&s) + patchesMarkdown(&s)
	for _, raw := range []string{"<b>", "[PASS](", "\n# head", "\x1b"} {
		if strings.Contains(md, raw) {
			t.Errorf("campaign.md or patches.md holds the peer's %q:\n%s", raw, md)
		}
	}
	if !strings.Contains(md, `\<b\>x\</b\>\[PASS\](http://x)\n# head\x1b\[2J`) {
		t.Errorf("campaign.md does not show the peer text escaped:\n%s", md)
	}
	line := RunLine(Event{Record: notTested("F1", 1, KindOther, peer), Unit: p.Units()[0], Done: 1, Total: 2})
	if strings.ContainsAny(line, "\n\x1b") {
		t.Errorf("progress line %q holds a line break or ESC", line)
	}
	if x := string(JUnit(&s)); strings.Contains(x, "\x1b") || strings.Contains(x, "&#xA;# head") {
		t.Errorf("junit.xml holds the peer's control characters:\n%s", x)
	}
}
