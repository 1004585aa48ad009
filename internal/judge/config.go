package judge

import (
	"encoding/json"
	"fmt"
	"sort"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/state"
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
	// Plugins are the state hooks (behaviour §16.4), consulted in order
	// once the after snapshot came: the first number a plugin gives an
	// operation is its effect. A failing plugin leaves every operation it
	// was asked about to the wire.
	Plugins []StateAttributor
}

// StateAttributor attributes the state probe's effects to write
// operations: a plugin's state hook. Attribute answers one entry per
// operation of in (nil = cannot attribute). An error is "no attribution"
// for every operation asked; its host counts it (Config.PluginStatus).
type StateAttributor interface {
	Attribute(in StateInput) (map[string]*int64, error)
}

// StateInput is what a state hook is given: the run's write operations
// and the before and after snapshots.
type StateInput struct {
	Operations []StateOperation `json:"operations"`
	Before     state.Snapshot   `json:"before"`
	After      state.Snapshot   `json:"after"`
}

// StateOperation is one write operation as a state hook sees it.
type StateOperation struct {
	// ID is operations[].id ("op-1").
	ID   string `json:"id"`
	Tool string `json:"tool"`
	// Arguments are the first attempt's arguments as the agent sent them.
	Arguments json.RawMessage `json:"arguments"`
	// Executions are the wire's executions; Unknown the attempts whose
	// outcome is uncertain (no answer, no usable answer, isError).
	Executions int `json:"executions"`
	Unknown    int `json:"unknown"`
}

// MaxEffect bounds an attributed effect: ±2^53, the integers every JSON
// reader keeps exactly.
const MaxEffect = 1 << 53

// CheckEffects checks a state hook's answer against its input: one entry
// per operation asked, no other, every number within ±MaxEffect.
func CheckEffects(in StateInput, out map[string]*int64) error {
	asked := make(map[string]bool, len(in.Operations))
	for _, op := range in.Operations {
		asked[op.ID] = true
	}
	ids := make([]string, 0, len(out))
	for id := range out {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	for _, id := range ids {
		if !asked[id] {
			return fmt.Errorf("effects for operation %q, which was not asked about", id)
		}
		if e := out[id]; e != nil && (*e > MaxEffect || *e < -MaxEffect) {
			return fmt.Errorf("effect %d of operation %q is outside ±2^53", *e, id)
		}
	}
	for _, op := range in.Operations {
		if _, ok := out[op.ID]; !ok {
			return fmt.Errorf("no entry for operation %q (a number or null is required for each)", op.ID)
		}
	}
	return nil
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
