package campaign

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/junit"
	"github.com/cuonztech/agent-harness/internal/reportfile"
)

// Output files of a campaign directory.
const (
	SummaryFile  = "campaign.json"
	MarkdownFile = "campaign.md"
	JUnitFile    = "junit.xml"
	PatchesFile  = "patches.md"
)

// WriteFiles writes campaign.json, campaign.md, junit.xml and patches.md
// into out.
func WriteFiles(out string, s *Summary) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	files := []struct {
		name string
		data []byte
	}{
		{SummaryFile, append(b, '\n')},
		{MarkdownFile, []byte(Markdown(s))},
		{JUnitFile, JUnit(s)},
		{PatchesFile, []byte(patchesMarkdown(s))},
	}
	for _, f := range files {
		if err := reportfile.Replace(filepath.Join(out, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

func percent(f float64) string {
	return strconv.FormatFloat(100*f, 'f', 1, 64) + " %"
}

func rateText(st Stats) string {
	if st.PassRate == nil {
		return "—"
	}
	return fmt.Sprintf("%s [%s, %s]", percent(*st.PassRate), percent(st.PassRateInterval.Low), percent(st.PassRateInterval.High))
}

func scoreText(st Stats) string {
	switch {
	case st.MeanScore == nil:
		return "—"
	case st.MeanScoreInterval == nil:
		return fmt.Sprintf("%.1f", *st.MeanScore)
	}
	return fmt.Sprintf("%.1f [%.1f, %.1f]", *st.MeanScore, st.MeanScoreInterval.Low, st.MeanScoreInterval.High)
}

func wallText(p *float64) string {
	if p == nil {
		return "—"
	}
	if *p < 1000 {
		return fmt.Sprintf("%.0f ms", *p)
	}
	return fmt.Sprintf("%.1f s", *p/1000)
}

func variantTitle(name string) string {
	if name == "" {
		return ""
	}
	return " — variant " + name
}

// Markdown renders the summary for people (campaign.md; the summary line
// on stdout uses the same table).
func Markdown(s *Summary) string {
	var b strings.Builder
	b.WriteString("# Campaign\n\n")
	if !s.Complete {
		b.WriteString("**Incomplete**: not every planned run has finished (interrupted, or a shard); resume with the same command.\n\n")
	}
	if s.Shard != "" {
		fmt.Fprintf(&b, "Shard %s of the plan; merge the shards with `agent-harness campaign merge`.\n\n", s.Shard)
	}
	// Reasons quote peer text (an agent's argument names, a plugin's
	// details): escaped as Markdown inline text (behaviour §7.5).
	fmt.Fprintf(&b, "Gate: exit %d — %s (variant %q, --min-pass-rate %g, --max-not-tested %g%s).\n\n", s.Gate.ExitCode, escape.Markdown(s.Gate.Reason),
		s.Gate.Variant, s.Gate.MinPassRate, s.Gate.MaxNotTested, gateHonestyText(s.Gate))
	for _, v := range s.Variants {
		fmt.Fprintf(&b, "## Results%s\n\n", variantTitle(v.Name))
		b.WriteString(TableText(v))
		b.WriteString("\n")
		for _, st := range v.rows() {
			name := st.Scenario
			if name == "" {
				name = "all scenarios"
			}
			if len(st.Violations)+len(st.Observations)+len(st.Patches)+len(st.NotTestedKinds)+len(st.Backend) == 0 {
				continue
			}
			fmt.Fprintf(&b, "### %s%s\n\n", escape.Markdown(name), variantTitle(v.Name))
			if len(st.NotTestedKinds) > 0 {
				fmt.Fprintf(&b, "NOT_TESTED runs by kind: %s.\n\n", escape.Markdown(kindsText(st.NotTestedKinds)))
			}
			writeCounts(&b, "Violations", st.Violations)
			writeCounts(&b, "Observations", st.Observations)
			writeCounts(&b, "Wire vs backend (state probe)", st.Backend)
			if len(st.Patches) > 0 {
				b.WriteString("Patches (share of runs): ")
				var parts []string
				for _, p := range st.Patches {
					parts = append(parts, fmt.Sprintf("%s %s (%d runs, %s)", escape.Markdown(p.Type), escape.Markdown(p.Severity), p.Runs, percent(p.Share)))
				}
				b.WriteString(strings.Join(parts, "; ") + ". Texts: patches.md.\n\n")
			}
		}
	}
	b.WriteString(fieldMarkdown(s))
	if len(s.Comparisons) > 0 {
		b.WriteString("## A/B comparison\n\nPASS-rate difference of each variant minus the first, 95 % interval (Newcombe hybrid score), Fisher's exact two-sided p-value.\n\n")
		b.WriteString("| scenario | variant | baseline | difference [95 % CI] | Fisher p |\n|---|---|---|---|---|\n")
		for _, c := range s.Comparisons {
			d, p := "—", "—"
			if c.Difference != nil {
				d = fmt.Sprintf("%+.1f pp [%+.1f, %+.1f]", 100**c.Difference, 100*c.Interval.Low, 100*c.Interval.High)
				p = strconv.FormatFloat(*c.FisherP, 'g', 4, 64)
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", escape.Markdown(c.Scenario), c.Variant, c.Baseline, d, p)
		}
		b.WriteString("\n")
	}
	b.WriteString("One run is one data point; the intervals say how sure the rates are. Runs: runs/…/run.json, each with the proxy's report.json and the agent's output.\n")
	return b.String()
}

// rows is a variant's table rows: its scenarios, then all of them.
func (v VariantSummary) rows() []Stats {
	return append(append([]Stats(nil), v.Scenarios...), v.Overall)
}

// scenarioCell is a row's scenario in a Markdown table, "**all**" for the
// row of all scenarios.
func scenarioCell(st Stats) string {
	if st.Scenario == "" {
		return "**all**"
	}
	return escape.Markdown(st.Scenario)
}

// variantCell is a variant's name in a Markdown table, "—" when it has none.
func variantCell(name string) string {
	if name == "" {
		return "—"
	}
	return escape.Markdown(name)
}

// TableText is the per-scenario table of one variant, in Markdown.
func TableText(v VariantSummary) string {
	var b strings.Builder
	b.WriteString("| scenario | runs | PASS | FAIL | NOT_TESTED | PASS rate [95 % CI] | mean score [95 % CI] | agent time median | p95 |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|\n")
	for _, st := range v.rows() {
		name := scenarioCell(st)
		runs := strconv.Itoa(st.Runs)
		if st.Runs != st.Planned {
			runs += " of " + strconv.Itoa(st.Planned)
		}
		fmt.Fprintf(&b, "| %s | %s | %d | %d | %d | %s | %s | %s | %s |\n", name, runs, st.Pass, st.Fail, st.NotTested,
			rateText(st), scoreText(st), wallText(st.AgentWallMs.Median), wallText(st.AgentWallMs.P95))
	}
	return b.String()
}

func writeCounts(b *strings.Builder, title string, tcs []TypeCount) {
	if len(tcs) == 0 {
		return
	}
	var parts []string
	for _, tc := range tcs {
		parts = append(parts, fmt.Sprintf("%s in %d runs (%d entries)", escape.Markdown(tc.Type), tc.Runs, tc.Entries))
	}
	fmt.Fprintf(b, "%s: %s.\n\n", title, strings.Join(parts, "; "))
}

var severityRank = map[string]int{"CRITICAL": 0, "HIGH": 1, "MEDIUM": 2}

// patchesMarkdown is patches.md: each triggered patch once, most severe
// first, with how often it was triggered, then all texts in one block to
// paste into a system prompt.
func patchesMarkdown(s *Summary) string {
	type agg struct {
		p     Patch
		runs  map[string]int // variant → runs
		first string
	}
	byType := map[string]*agg{}
	runsPer := map[string]int{}
	for _, r := range s.Runs {
		runsPer[r.Variant]++
		seen := map[string]bool{}
		for _, p := range r.Patches {
			if seen[p.Type] {
				continue
			}
			seen[p.Type] = true
			a := byType[p.Type]
			if a == nil {
				a = &agg{p: p, runs: map[string]int{}, first: labelOf(r)}
				byType[p.Type] = a
			}
			a.runs[r.Variant]++
		}
	}
	var list []*agg
	for _, a := range byType {
		list = append(list, a)
	}
	sort.Slice(list, func(i, j int) bool {
		ri, rj := severityRank[list[i].p.Severity], severityRank[list[j].p.Severity]
		if ri != rj {
			return ri < rj
		}
		return list[i].p.Type < list[j].p.Type
	})
	var b strings.Builder
	b.WriteString("# Prompt patches\n\n")
	if len(list) == 0 {
		b.WriteString("No run triggered a patch.\n")
		return b.String()
	}
	b.WriteString("The patches the runs' reports offered for misbehaviour actually observed. They are suggestions, " +
		"not verified fixes: add them to the agent's system prompt, run the campaign again (for example as a " +
		"--variant), and compare.\n\n")
	for _, a := range list {
		fmt.Fprintf(&b, "## %s (%s)\n\n", escape.Markdown(a.p.Type), escape.Markdown(a.p.Severity))
		var parts []string
		for _, vn := range s.Plan.variantNames() {
			if n := a.runs[vn]; n > 0 {
				where := ""
				if vn != "" {
					where = " of variant " + vn
				}
				parts = append(parts, fmt.Sprintf("%d of %d runs%s (%s)", n, runsPer[vn], where, percent(float64(n)/float64(runsPer[vn]))))
			}
		}
		fmt.Fprintf(&b, "Triggered in %s. First seen in %s: %s\n\n", strings.Join(parts, ", "), escape.Markdown(a.first), escape.Markdown(a.p.Trigger))
		b.WriteString(a.p.Text + "\n\n")
	}
	b.WriteString("## All patches, to paste into a system prompt\n\n```text\n")
	for i, a := range list {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(a.p.Text + "\n")
	}
	b.WriteString("```\n")
	return b.String()
}

func labelOf(r Record) string {
	return Unit{Variant: r.Variant, Scenario: r.Scenario, N: r.Run}.Label()
}

// JUnit renders the campaign as JUnit XML, the junit.xml of WriteFiles: a
// suite per variant and scenario, a test case per finished run (FAIL is a failure, NOT_TESTED is skipped) and a skipped
// one per planned run that did not finish, then a suite "gate" whose one
// case is a failure unless the gate's exit code is 0 — so that no
// rendering of a gate that did not pass looks green (behaviour §9.3).
// Peer text (reasons) is shown as escape.Line shows it: XML cannot carry
// control characters.
func JUnit(s *Summary) []byte {
	top := junit.Suites{Name: "agent-harness campaign"}
	unfinished := unfinishedUnits(s)
	for _, v := range s.Variants {
		for _, st := range v.Scenarios {
			name := st.Scenario
			if v.Name != "" {
				name = v.Name + "/" + name
			}
			suite := junit.Suite{Name: name}
			var secs float64
			for _, r := range s.Runs {
				if r.Variant != v.Name || r.Scenario != st.Scenario {
					continue
				}
				c := junit.Case{Name: labelOf(r), ClassName: "agent-harness.campaign." + strings.ReplaceAll(name, "/", "."),
					Time: junit.Seconds(r.AgentWallMs / 1000), SystemOut: r.Dir}
				secs += r.AgentWallMs / 1000
				switch r.Verdict {
				case Fail:
					c.Failure = &junit.Message{Message: escape.Line(strings.Join(r.Violations, ", ")), Type: Fail, Text: escape.Line(r.Reason)}
				case NotTested:
					c.Skipped = &junit.Message{Message: escape.Line(r.Reason)}
				}
				suite.Cases = append(suite.Cases, c)
			}
			for _, u := range unfinished {
				if u.Variant != v.Name || u.Scenario != st.Scenario {
					continue
				}
				suite.Cases = append(suite.Cases, junit.Case{Name: u.Label(), ClassName: "agent-harness.campaign." + strings.ReplaceAll(name, "/", "."),
					Time: junit.Seconds(0), Skipped: &junit.Message{Message: "not run: the run did not finish (the campaign is incomplete)"}})
			}
			suite.Time = junit.Seconds(secs)
			top.Add(suite)
		}
	}
	gate := junit.Case{Name: "gate", ClassName: "agent-harness.campaign.gate", Time: junit.Seconds(0)}
	if s.Gate.ExitCode != 0 {
		gate.Failure = &junit.Message{Message: fmt.Sprintf("gate: exit %d", s.Gate.ExitCode), Type: "GATE", Text: escape.Line(s.Gate.Reason)}
	}
	top.Add(junit.Suite{Name: "gate", Time: junit.Seconds(0), Cases: []junit.Case{gate}})
	return junit.Encode(top)
}

// unfinishedUnits are the planned runs of s (of its shard) without a
// record, in the plan's order.
func unfinishedUnits(s *Summary) []Unit {
	if s.Plan == nil || s.Complete {
		return nil
	}
	sh := Shard{N: 1}
	if i, n, ok := strings.Cut(s.Shard, "/"); ok {
		ii, err1 := strconv.Atoi(i)
		nn, err2 := strconv.Atoi(n)
		if err1 == nil && err2 == nil && nn > 0 {
			sh = Shard{I: ii, N: nn}
		}
	}
	have := map[string]bool{}
	for _, r := range s.Runs {
		have[labelOf(r)] = true
	}
	var out []Unit
	for _, u := range s.Plan.Units() {
		if (sh.N <= 1 || u.Index%sh.N == sh.I) && !have[u.Label()] {
			out = append(out, u)
		}
	}
	return out
}
