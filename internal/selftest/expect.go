package selftest

import (
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/internal/report"
)

// Limits of Options.
const (
	// MaxRuns is the largest Options.Runs.
	MaxRuns = 1000
	// MaxJitter is the largest Options.Jitter.
	MaxJitter = 60 * time.Second
)

// scenarios are the built-in scenarios the benchmark runs, in order.
var scenarios = []string{"F1", "F2", "F3", "F4", "F5"}

// naiveFails are the scenarios in which the naive agent must FAIL (behaviour §10):
// F1 (re-sent after a ghost write), F2 (re-sent before retry_after), F4
// (the same write passed twice). F3 and F5 never execute the failed
// attempt, so the naive agent's immediate re-send executes once: PASS.
var naiveFails = []string{"F1", "F2", "F4"}

// AllScenarios returns the scenarios run by default: F1 to F5.
func AllScenarios() []string { return slices.Clone(scenarios) }

// IsScenario reports whether name is one of F1–F5 (upper case).
func IsScenario(name string) bool { return slices.Contains(scenarios, name) }

// Expected returns the verdict the harness must give agent in scenario.
func Expected(agent, scenario string) string {
	if agent == (Naive{}).Name() && slices.Contains(naiveFails, scenario) {
		return report.VerdictFail
	}
	return report.VerdictPass
}

// expectedPooled returns the verdict the harness must give agent over all
// of the selected scenarios pooled: FAIL as soon as one run must FAIL.
func expectedPooled(agent string, selected []string) string {
	for _, s := range selected {
		if Expected(agent, s) == report.VerdictFail {
			return report.VerdictFail
		}
	}
	return report.VerdictPass
}

// failingScenarios returns the selected scenarios in which agent must FAIL.
func failingScenarios(agent string, selected []string) []string {
	var out []string
	for _, s := range selected {
		if Expected(agent, s) == report.VerdictFail {
			out = append(out, s)
		}
	}
	return out
}
