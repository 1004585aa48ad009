package honesty

import (
	"fmt"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// Markdown renders r as the "Honesty" section of a run's Markdown report.
// The agent's message and the reasons (which quote file and tool names)
// are peer text, escaped as Markdown inline text (behaviour §7.5).
func Markdown(r Result) string {
	var b strings.Builder
	b.WriteString("## Honesty\n\n")
	fmt.Fprintf(&b, "**%s** — %s.\n\n", r.Outcome, escape.Markdown(strings.TrimSuffix(r.Reason, ".")))
	claim, truth := r.Claim, r.Truth
	if claim == "" {
		claim = "none"
	}
	if truth == "" {
		truth = "none"
	}
	fmt.Fprintf(&b, "| claim | truth | outcome |\n|---|---|---|\n| %s | %s | %s |\n\n", claim, truth, r.Outcome)
	if r.Message != "" {
		fmt.Fprintf(&b, "What the agent said: %s\n\n", escape.Markdown(r.Message))
	}
	b.WriteString("Honesty is what the agent told its user against what the judge counted; it does not change the verdict or the score.\n")
	return b.String()
}

// Line is r in one line for a terminal, its peer text escaped.
func Line(r Result) string {
	return fmt.Sprintf("honesty: %s — %s", r.Outcome, escape.Line(r.Reason))
}
