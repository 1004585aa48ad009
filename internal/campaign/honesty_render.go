package campaign

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/honesty"
)

// fieldMarkdown renders the sections of campaign.md that match the field's
// own tables (behaviour §15.3): the seed's table (double executions "k of
// n" per scenario, each variant beside the first, honesty beside them),
// the honesty outcomes, pass^k, and the model's statistics when runs had
// a transcript.
func fieldMarkdown(s *Summary) string {
	var b strings.Builder
	b.WriteString(seedTable(s))
	b.WriteString(honestyTables(s))
	b.WriteString(passKTable(s))
	b.WriteString(modelTable(s))
	return b.String()
}

func variantLabel(name string) string {
	if name == "" {
		return "all runs"
	}
	return "variant " + name
}

// doubles counts the runs of a variant's scenario with a
// DUPLICATE_EXECUTION violation.
func doubles(s *Summary, variant, scenario string) int {
	n := 0
	for _, r := range s.Runs {
		if r.Variant != variant || r.Scenario != scenario {
			continue
		}
		for _, v := range r.Violations {
			if v == "DUPLICATE_EXECUTION" {
				n++
				break
			}
		}
	}
	return n
}

func seedTable(s *Summary) string {
	if len(s.Variants) == 0 || s.Plan == nil {
		return ""
	}
	for _, v := range s.Variants {
		if len(v.Scenarios) != len(s.Plan.Scenarios) {
			return "" // not a file this build wrote
		}
	}
	var b strings.Builder
	b.WriteString("## Double executions and honesty\n\n")
	b.WriteString("Runs with a double execution (a DUPLICATE_EXECUTION violation) \"k of n\" finished runs, and how often the agent told its user " +
		"the truth about its one write (accurate, or uncertainty disclosed, of the runs where honesty was measured). " +
		"A NOT_TESTED run is counted in n, not in k: it may hide a double execution.\n\n")
	b.WriteString("| scenario |")
	for _, v := range s.Variants {
		fmt.Fprintf(&b, " double executions (%s) |", escape.Markdown(variantLabel(v.Name)))
	}
	for _, v := range s.Variants {
		fmt.Fprintf(&b, " honesty (%s) |", escape.Markdown(variantLabel(v.Name)))
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", 2*len(s.Variants)) + "\n")
	for i, sc := range s.Plan.Scenarios {
		fmt.Fprintf(&b, "| %s |", escape.Markdown(sc))
		for _, v := range s.Variants {
			st := v.Scenarios[i]
			cell := fmt.Sprintf("%d of %d", doubles(s, v.Name, sc), st.Runs)
			if st.NotTested > 0 {
				cell += fmt.Sprintf(" (%d NOT_TESTED)", st.NotTested)
			}
			fmt.Fprintf(&b, " %s |", cell)
		}
		for _, v := range s.Variants {
			fmt.Fprintf(&b, " %s |", honestyCell(v.Scenarios[i].Honesty, v.Scenarios[i].Runs))
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	return b.String()
}

// honestyCell is "2 of 10 accurate or disclosed; 8 CLAIMED_FAILURE_BUT_EXECUTED".
func honestyCell(h HonestyStats, runs int) string {
	if h.Outcomes == nil {
		return "—" // a campaign.json of a build before honesty
	}
	if h.Measured == 0 {
		return fmt.Sprintf("not measured (%d runs)", runs)
	}
	cell := fmt.Sprintf("%d of %d accurate or disclosed", h.AccurateOrDisclosed, h.Measured)
	var bad []string
	for _, o := range []string{honesty.ClaimedFailureButExecuted, honesty.ClaimedSuccessButNotExecuted, honesty.Unclear} {
		if n := h.Outcomes[o]; n > 0 {
			bad = append(bad, fmt.Sprintf("%d %s", n, o))
		}
	}
	if len(bad) > 0 {
		cell += "; " + strings.Join(bad, ", ")
	}
	if n := h.Outcomes[honesty.NotMeasured]; n > 0 {
		cell += fmt.Sprintf("; %d not measured", n)
	}
	return cell
}

func honestyTables(s *Summary) string {
	var b strings.Builder
	for _, v := range s.Variants {
		if v.Overall.Honesty.Outcomes == nil {
			continue // a campaign.json of a build before honesty
		}
		fmt.Fprintf(&b, "## Honesty%s\n\n", variantTitle(v.Name))
		b.WriteString("The agent's claim (claim.json, or the transcript's) against the judge's truth of the run's one write; not part of the verdict or the score.\n\n")
		b.WriteString("| scenario | measured |")
		for _, o := range honesty.Outcomes {
			b.WriteString(" " + o + " |")
		}
		b.WriteString(" accurate or disclosed [95 % CI] |\n|---|---|" + strings.Repeat("---|", len(honesty.Outcomes)+1) + "\n")
		for _, st := range v.rows() {
			name := scenarioCell(st)
			fmt.Fprintf(&b, "| %s | %d |", name, st.Honesty.Measured)
			for _, o := range honesty.Outcomes {
				fmt.Fprintf(&b, " %d |", st.Honesty.Outcomes[o])
			}
			rate := "—"
			if h := st.Honesty; h.Rate != nil {
				rate = fmt.Sprintf("%s [%s, %s]", percent(*h.Rate), percent(h.RateInterval.Low), percent(h.RateInterval.High))
			}
			fmt.Fprintf(&b, " %s |\n", rate)
		}
		b.WriteString("\n")
		if nm := v.Overall.Honesty.NotMeasured; len(nm) > 0 {
			// The reasons quote file names and tool names: peer text.
			fmt.Fprintf(&b, "NOT_MEASURED runs by reason: %s.\n\n", escape.Markdown(reasonsText(nm)))
		}
	}
	return b.String()
}

func passKTable(s *Summary) string {
	if len(s.Variants) == 0 || s.Variants[0].Overall.PassK == nil {
		return "" // a campaign.json of a build before pass^k
	}
	var b strings.Builder
	b.WriteString("## pass^k\n\nThe chance that k independent runs all PASS, C(PASS,k)/C(judged,k) over the judged runs (τ-bench's metric); " +
		"for all scenarios the mean over the scenarios. — where fewer than k runs were judged.\n\n")
	b.WriteString("| variant | scenario | judged | pass^1 | pass^2 | pass^4 | pass^8 |\n|---|---|---|---|---|---|---|\n")
	for _, v := range s.Variants {
		for _, st := range v.rows() {
			name := scenarioCell(st)
			fmt.Fprintf(&b, "| %s | %s | %d |", variantCell(v.Name), name, st.Judged)
			for _, k := range []int{1, 2, 4, 8} {
				cell := "—"
				for _, p := range st.PassK {
					if p.K == k {
						cell = strconv.FormatFloat(p.Value, 'f', 3, 64)
					}
				}
				b.WriteString(" " + cell + " |")
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

func modelTable(s *Summary) string {
	have := false
	for _, v := range s.Variants {
		have = have || v.Overall.Model != nil
	}
	if !have {
		return ""
	}
	var b strings.Builder
	b.WriteString("## The model\n\nFrom the runs' transcripts (the built-in agent): tokens (input + output) and model latency per run, " +
		"and the provider's own faults (an LLM server's 429 or 5xx, never the proxy's).\n\n")
	b.WriteString("| variant | scenario | runs with a transcript | tokens median | p95 | model latency median | p95 | provider faults | per run | runs with provider faults |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	num := func(p *float64) string {
		if p == nil {
			return "—"
		}
		return strconv.FormatFloat(*p, 'f', 0, 64)
	}
	for _, v := range s.Variants {
		for _, st := range v.rows() {
			m := st.Model
			if m == nil {
				continue
			}
			name := scenarioCell(st)
			fmt.Fprintf(&b, "| %s | %s | %d | %s | %s | %s | %s | %d | %.2f | %d |\n", variantCell(v.Name), name, m.Runs,
				num(m.Tokens.Median), num(m.Tokens.P95), wallText(m.LatencyMs.Median), wallText(m.LatencyMs.P95),
				m.ProviderFaults, m.ProviderFaultsPerRun, m.RunsWithProviderFaults)
		}
	}
	b.WriteString("\n")
	return b.String()
}

// gateHonestyText is ", --min-honesty-rate R" when the gate has one.
func gateHonestyText(g Gate) string {
	if g.MinHonestyRate == nil {
		return ""
	}
	return fmt.Sprintf(", --min-honesty-rate %g", *g.MinHonestyRate)
}

// HonestyLines are the summary's lines on honesty, one per variant and
// scenario, when some run had honesty measured (none otherwise, so a
// campaign of agents that report no claim prints what it printed before):
// "honesty F1: 0 of 2 accurate or disclosed; 2 CLAIMED_FAILURE_BUT_EXECUTED".
func HonestyLines(s *Summary) []string {
	measured := false
	for _, v := range s.Variants {
		measured = measured || v.Overall.Honesty.Measured > 0
	}
	if !measured {
		return nil
	}
	var out []string
	for _, v := range s.Variants {
		for _, st := range v.Scenarios {
			if st.Runs == 0 {
				continue
			}
			where := ""
			if v.Name != "" {
				where = " (variant " + v.Name + ")"
			}
			out = append(out, fmt.Sprintf("honesty %s%s: %s", escape.Line(st.Scenario), where, honestyCell(st.Honesty, st.Runs)))
		}
	}
	return out
}
