package report

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// markdownLimit caps the rows of each list in the Markdown rendering; the
// JSON format always has everything.
const markdownLimit = 50

// Markdown renders a report, its score and patches as Markdown: what
// cuonztech__get_report returns, and what `agent-harness report` makes of
// a report file (the same data parsed back). A state object (st, with
// --state-command) adds its section before the patches.
func Markdown(r Report, s Score, ps []Patch, st ...*StateInfo) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# agent-harness report: %s\n\n", r.Verdict)
	fmt.Fprintf(&b, "%s\n\n", escape.Markdown(r.VerdictReason))
	fmt.Fprintf(&b, "Certification: %s — a self-test, not a certificate. Kind: %s. Honesty (what the agent tells its user): not measured.\n\n", r.Certification, r.Kind)
	b.WriteString(ScoreMarkdown(s))

	c := r.Coverage
	b.WriteString("\n## Coverage\n\n")
	sc := "none (plain relay)"
	if c.Scenario != nil {
		sc = escape.Markdown(*c.Scenario)
	}
	fired := "did not fire"
	if c.ScenarioFired {
		fired = "fired"
	}
	fmt.Fprintf(&b, "- Scenario: %s, %s; injected faults: %d\n", sc, fired, c.InjectedFaults)
	fmt.Fprintf(&b, "- Calls: %d (write %d, read %d, unclassified %d, unknown tool %d); in flight: %d\n",
		c.Calls.Total, c.Calls.Write, c.Calls.Read, c.Calls.Unclassified, c.Calls.Unknown, c.CallsInFlight)
	fmt.Fprintf(&b, "- Write operations: %d; successful reads: %d\n", c.WriteOperations, c.SuccessfulReads)
	if len(c.UnclassifiedTools) > 0 {
		fmt.Fprintf(&b, "- Unclassified tools called (not judged): %s\n", mdList(c.UnclassifiedTools))
	}
	if len(c.UnknownTools) > 0 {
		fmt.Fprintf(&b, "- Tools not listed by the upstream (not judged): %s\n", mdList(c.UnknownTools))
	}

	ops := make(map[string]*OperationInfo, len(r.Operations))
	for i := range r.Operations {
		ops[r.Operations[i].ID] = &r.Operations[i]
	}
	writeEntries(&b, "Violations", r.Violations, func(v Violation) [4]string {
		return [4]string{v.Type, v.Operation, v.Tool, v.Message}
	}, func(v Violation) string { return opDetail(ops[v.Operation]) })
	writeEntries(&b, "Observations", r.Observations, func(o Observation) [4]string {
		return [4]string{o.Type, o.Operation, o.Tool, o.Message}
	}, func(o Observation) string {
		if o.RelatedBy == nil {
			return ""
		}
		return "  - related to " + escape.Markdown(o.RelatedOperation) + " by " + mdRule(*o.RelatedBy) + "\n"
	})
	writeTable(&b, "\n## Operations\n\n| id | tool | attempts | executions | failed | keys | outcome |\n|---|---|---|---|---|---|---|\n",
		r.Operations, "operations", func(op OperationInfo) string {
			return fmt.Sprintf("| %s | %s | %d | %d | %d | %s | %s |\n", op.ID, mdCell(op.Tool), op.Attempts, op.Executions,
				op.FailedAttempts, mdCell(strings.Join(op.Keys, ", ")), op.Outcome)
		})
	writeTable(&b, "\n## Idempotency keys (informational, not part of the verdict)\n\n| key | tool | attempts | executions | record existed | overwritten | read before | gave up silently |\n|---|---|---|---|---|---|---|---|\n",
		r.KeySummary, "keys", func(k KeyInfo) string {
			d := k.StateDiff
			return fmt.Sprintf("| %s | %s | %d | %d | %t | %t | %t | %t |\n", mdCell(k.Key), mdCell(k.Tool), k.Attempts, k.Executions,
				d.RecordExisted, d.WasOverwritten, d.DidAgentReadBefore, d.AgentGaveUpSilently)
		})
	if len(r.PluginFailures) > 0 {
		b.WriteString("\n## Plugin failures\n\n")
		for _, p := range r.PluginFailures {
			disabled := ""
			if p.Status == PluginStatusDisabled {
				disabled = ", disabled"
			}
			fmt.Fprintf(&b, "- %s: %d failure(s)%s: %s\n", escape.Markdown(p.Plugin), p.Failures, disabled, escape.Markdown(p.Detail))
		}
	}
	if len(st) > 0 && st[0] != nil {
		b.WriteString(stateMarkdown(st[0], r.Operations))
	}
	b.WriteString(PatchesMarkdown(ps))
	return b.String()
}

// stateMarkdown is the Backend state section (behaviour §16.4): the
// probe's reason for no effect, per mapped tool the effect beside the
// wire's executions, and the operations the backend decided.
func stateMarkdown(st *StateInfo, ops []OperationInfo) string {
	var b strings.Builder
	b.WriteString("\n## Backend state (state probe)\n\n")
	fmt.Fprintf(&b, "- Command: %s\n", mdCode(st.Command))
	fmt.Fprintf(&b, "- Snapshots: %d", len(st.Snapshots))
	if st.Before == nil {
		b.WriteString(" (none before the upstream started)")
	}
	if st.After == nil {
		b.WriteString(" (none after the session)")
	}
	b.WriteString("\n")
	if st.Error != nil {
		fmt.Fprintf(&b, "- Probe problem (the wire judgement stands where it applies): %s\n", escape.Markdown(*st.Error))
	}
	if len(st.Tools) > 0 {
		b.WriteString("\n| tool | counter | effects | wire executions | operations | note |\n|---|---|---|---|---|---|\n")
		for _, t := range st.Tools {
			eff, note := "—", t.Note
			if t.Effects != nil {
				eff = fmt.Sprint(*t.Effects)
			}
			if t.Error != "" {
				note = t.Error
			}
			fmt.Fprintf(&b, "| %s | %s | %s | %d | %d | %s |\n", mdCell(t.Tool), mdCell(t.Counter), eff, t.Executions, t.Operations, mdCell(note))
		}
	}
	var decided []string
	for _, op := range ops {
		if op.DecidedBy == "backend" {
			decided = append(decided, fmt.Sprintf("%s (%s, effects %s)", op.ID, op.Outcome, op.Effects))
		}
	}
	if len(decided) > 0 {
		fmt.Fprintf(&b, "\nDecided by the backend: %s\n", mdCell(strings.Join(decided, "; ")))
	}
	return b.String()
}

// ScoreMarkdown renders a score: the overall line, the dimension table and,
// only when the cap lowered the number, the cap note. The benchmark uses it
// for pooled scores too.
func ScoreMarkdown(s Score) string {
	var b strings.Builder
	total := "no score"
	if s.Total != nil {
		total = fmt.Sprintf("%d/100", *s.Total)
	}
	fmt.Fprintf(&b, "## Overall: %s [%s]\n\n", total, s.Verdict)
	b.WriteString("| Dimension | Weight | Value |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| Duplicate Safety | %d %% | %s |\n", s.Weights.DuplicateSafety, pct(s.DuplicateSafety, s.Verdict))
	fh := pct(s.FailureHandling, s.Verdict)
	if s.FailureHandling == nil && s.Verdict != VerdictNotTested {
		fh = "nothing injected"
	}
	fmt.Fprintf(&b, "| Failure Handling | %d %% | %s |\n", s.Weights.FailureHandling, fh)
	b.WriteString("| Honesty | — | not measured |\n")
	if s.Capped && s.Uncapped != nil {
		fmt.Fprintf(&b, "\nNote: capped at %d because of a violation (uncapped %d/100).\n", FailCap, *s.Uncapped)
	}
	if s.Verdict == VerdictNotTested {
		b.WriteString("\nNOT_TESTED runs get no score.\n")
	}
	return b.String()
}

// PatchesMarkdown renders prompt patches; empty when there are none.
func PatchesMarkdown(ps []Patch) string {
	if len(ps) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n# Prompt patches\n\n")
	b.WriteString(PatchDisclaimer + "\n")
	for _, p := range ps {
		// Text is the harness's own Markdown; the trigger names fault
		// kinds, which plugins choose.
		fmt.Fprintf(&b, "\n## [%s] %s\n\n**Trigger:** %s\n\n%s\n", p.Severity, p.Type, escape.Markdown(p.Trigger), p.Text)
	}
	return b.String()
}

func pct(v *float64, verdict string) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%g %%", *v)
}

// mdCell is peer text in a table cell (escape.Markdown escapes "|").
func mdCell(s string) string { return escape.Markdown(s) }

// mdList is a list of peer names, comma-separated.
func mdList(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = escape.Markdown(n)
	}
	return strings.Join(out, ", ")
}

// Limits of the operation details under a violation in the Markdown.
const (
	mdArgumentsBytes = 300 // of the arguments' JSON text
	mdTimeline       = 10  // attempts
)

// opDetail renders an operation's arguments and a short timeline of its
// attempts as two indented list items; "" for nil.
func opDetail(op *OperationInfo) string {
	if op == nil {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "  - arguments: %s\n", mdArgs(op.Arguments, op.ArgumentsTruncated, op.ArgumentsInvalid))
	b.WriteString("  - attempts:")
	for i, a := range op.AttemptLog {
		if i == mdTimeline {
			fmt.Fprintf(&b, " → … %d more", len(op.AttemptLog)-i)
			break
		}
		if i > 0 {
			b.WriteString(" →")
		}
		fmt.Fprintf(&b, " %d ms %s", a.At, a.Outcome)
		var extra []string
		if a.Fault != "" {
			extra = append(extra, "agent saw "+escape.Markdown(a.Fault))
		}
		if a.Key != "" {
			extra = append(extra, "key "+mdCode(a.Key))
		}
		if a.Arguments != nil {
			extra = append(extra, "arguments "+mdArgs(a.Arguments, a.ArgumentsTruncated, a.ArgumentsInvalid))
		}
		if a.JoinedBy != nil {
			extra = append(extra, "joined by "+mdRule(*a.JoinedBy))
		}
		if len(extra) > 0 {
			b.WriteString(" (" + strings.Join(extra, ", ") + ")")
		}
	}
	if op.AttemptLogOmitted > 0 {
		fmt.Fprintf(&b, " (%d later attempts not listed)", op.AttemptLogOmitted)
	}
	b.WriteString("\n")
	return b.String()
}

// mdArgs renders shown arguments as a code span of at most
// mdArgumentsBytes of their JSON text, with a note when cut or invalid.
func mdArgs(value json.RawMessage, truncated, invalid bool) string {
	args := string(value)
	if truncated || invalid {
		var s string
		if json.Unmarshal(value, &s) == nil {
			args = s
		}
	}
	cut := len(args) > mdArgumentsBytes
	if cut {
		args = args[:escape.Cut(args, mdArgumentsBytes)]
	}
	note := ""
	switch {
	case invalid:
		note = " (not valid JSON)"
	case cut || truncated:
		note = " (cut; format json has up to 4096 bytes)"
	}
	return mdCode(args) + note
}

// mdRule names a join or relation rule; the plugin name and reason are
// peer text, escaped.
func mdRule(r RuleInfo) string {
	s := escape.Markdown(r.Describe())
	if r.Reason != "" && (r.Rule == RuleEquivSame) {
		s += ": " + escape.Markdown(r.Reason)
	}
	return s
}

// mdCode renders s as a Markdown code span whose fence is longer than any
// run of backticks in s; control characters and line breaks are shown
// escaped (escape.Code).
func mdCode(s string) string { return escape.Code(s) }

// writeTable renders a table section: head (its heading, header and rule
// lines), then row of each entry, at most markdownLimit of them, then how
// many more (of noun) there are.
func writeTable[E any](b *strings.Builder, head string, entries []E, noun string, row func(E) string) {
	if len(entries) == 0 {
		return
	}
	b.WriteString(head)
	for i, e := range entries {
		if i == markdownLimit {
			fmt.Fprintf(b, "\n… %d more %s (use format json)\n", len(entries)-i, noun)
			break
		}
		b.WriteString(row(e))
	}
}

// writeEntries renders a list section of violations or observations: type,
// operation, tool and message per entry, at most markdownLimit of them;
// detail, when not nil, adds lines under an entry.
func writeEntries[E any](b *strings.Builder, title string, entries []E, fields func(E) [4]string, detail func(E) string) {
	if len(entries) == 0 {
		return
	}
	b.WriteString("\n## " + title + "\n\n")
	for i, e := range entries {
		if i == markdownLimit {
			fmt.Fprintf(b, "- … %d more (use format json)\n", len(entries)-i)
			break
		}
		f := fields(e)
		// Tool and message carry peer text (tool names, arguments, plugin
		// details): escaped, so that none can start a line of its own.
		fmt.Fprintf(b, "- **%s** %s %s: %s\n", escape.Markdown(f[0]), escape.Markdown(f[1]), escape.Code(f[2]), escape.Markdown(f[3]))
		if detail != nil {
			b.WriteString(detail(e))
		}
	}
}
