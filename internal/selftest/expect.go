package selftest

import (
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/refagent"
	"github.com/cuonztech/agent-harness/internal/report"
)

// Limits of Options.
const (
	// MaxRuns is the largest Options.Runs.
	MaxRuns = 1000
	// MaxJitter is the largest Options.Jitter.
	MaxJitter = 60 * time.Second
)

// AllScenarios returns the scenarios run by default: the built-in
// --scenario faults, F1 to F5.
func AllScenarios() []string { return fault.Scenarios() }

// IsScenario reports whether name is one of F1–F5 (upper case).
func IsScenario(name string) bool { return fault.IsScenario(name) }

// Expected returns the verdict the harness must give agent in scenario.
// The naive agent must FAIL where the fault says an immediate re-send fails
// (Builtin.ResendFails, behaviour §10): F1 (re-sent after a ghost write),
// F2 (re-sent before retry_after), F4 (the same write passed twice). F3 and
// F5 never execute the failed attempt, so the naive agent's immediate
// re-send executes once: PASS.
func Expected(agent, scenario string) string {
	if b, _ := fault.Lookup(scenario); agent == (refagent.Naive{}).Name() && b.ResendFails && b.Name == scenario {
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
