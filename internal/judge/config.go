package judge

import (
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
)

// Config configures a Judge. The zero value is usable: default key field
// (idempotency_key), no scenario (PASS is then only a baseline), kind
// "proxy", no plugins.
type Config struct {
	// KeyFields are the argument names holding idempotency keys.
	KeyFields canon.KeyFields
	// Scenario is the configured scenario ("F1".."F5", a plugin fault name,
	// "chaos"); "" means none. When set, a run in which no answer carried a
	// Scenario is NOT_TESTED ("the scenario never fired").
	Scenario string
	// Kind is "proxy" (default, a real upstream) or "demo".
	Kind string
	// Equivalences are plugins consulted, in order, for an operation key of
	// a write call; the first opinion is an alias that can only widen the
	// built-in canonical key (see the package documentation).
	Equivalences []Equivalence
	// PairCheckers are plugins consulted, in order, before the built-in
	// near-duplicate detector when a later write of a tool is compared with
	// an uncertain attempt of the same tool.
	PairCheckers []PairChecker
	// PluginStatus, when set, returns the plugins' health (the plugin
	// host counts the failures of every hook, and disables a plugin after
	// repeated failures). It is read whenever a verdict or report is
	// computed: a plugin that failed makes PASS impossible and is listed
	// in report.pluginFailures. An Equivalence or PairChecker error is
	// "no opinion" to the judge; its host must count it here.
	PluginStatus func() []PluginState
	// Start is when the run started: attemptLog[].at counts from it. Zero
	// means the time of the first event.
	Start time.Time
	// RedactArguments shows every leaf value of the arguments, key values
	// included, as "sha256:<hex>" (RedactArguments), in operations[]
	// (arguments, keys, attemptLog), keySummary and the Markdown; a pair
	// check plugin's explanation is replaced by a generic one, since it
	// may quote values. Judging is unchanged.
	RedactArguments bool
	// State is the state probe (behaviour §16): its command (for the
	// report) and which counter each write tool's executions change. A
	// zero State takes no effects into account.
	State StateConfig
}

// StateConfig is the judge's view of the state probe.
type StateConfig struct {
	// Command is the --state-command ("" = none: the report has no state
	// object, operations no effects).
	Command string
	// Map is tool → counter (--state-map).
	Map map[string]string
}

// Namer is implemented by plugins that can name themselves; the name is used
// when a plugin's key contradicts the built-in one.
type Namer interface {
	Name() string
}

func (c Config) kind() string {
	if c.Kind == "" {
		return "proxy"
	}
	return c.Kind
}
