package harness

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/plugin"
)

// Plugins are the plugin modules of one run (behaviour §12). The zero
// value (no plugin) has none and adds nothing.
type Plugins struct {
	set *plugin.Set
	// sink is where plugin failures go (Attach): the pipeline, which
	// exists only after the plugins were loaded. No hook runs before it
	// is attached (loading runs only ah_init, whose failure is a load
	// error); the plugins count every failure themselves anyway.
	sink atomic.Pointer[func(plugin, detail string, disabled bool)]
}

// onFailure is the plugins' Options.OnFailure: it passes the failure to
// the attached sink.
func (pp *Plugins) onFailure(plugin, detail string, disabled bool) {
	if f := pp.sink.Load(); f != nil {
		(*f)(plugin, detail, disabled)
	}
}

// LoadPlugins loads c.Plugins, after the report file target was checked
// and before the session is built and the upstream started. A module that
// does not load is its error (one stderr line and exit 1 in the CLI), with
// a "failed" report file when report is not nil; a scenario name that is
// neither a built-in scenario nor a fault of a loaded plugin is a UsageError (exit 2)
// naming the faults there are. Without plugins nothing is loaded and the
// compilation cache is not touched.
func LoadPlugins(ctx context.Context, c Config, report pipeline.ReportWriter, stderr io.Writer) (*Plugins, error) {
	pp := &Plugins{}
	if len(c.Plugins) == 0 {
		return pp, nil
	}
	opts := c.PluginOptions
	opts.KeyFields = c.keyFields().Names()
	opts.Log, opts.OnFailure = stderr, pp.onFailure
	set, err := plugin.LoadAll(ctx, c.Plugins, c.PluginConfig, opts)
	if err != nil {
		reportStartupFailed(c, report, err, stderr)
		return nil, err
	}
	pp.set = set
	if err := checkPluginScenario(c.Scenario, set); err != nil {
		pp.Close()
		return nil, err
	}
	for _, p := range set.Plugins() {
		fmt.Fprintln(stderr, PluginLoadedLine(p.Manifest(), p.Path()))
	}
	return pp, nil
}

// PluginLoadedLine is the start-up stderr line of one loaded plugin
// (behaviour §12.3): its name and version, its hooks (and faults), and the
// file it came from. Printed when quiet too: a plugin changes what the
// judge counts as one operation, so a run never uses one unannounced.
func PluginLoadedLine(m plugin.Manifest, path string) string {
	s := fmt.Sprintf("plugin loaded: %s %s, hooks %s", m.Name, m.Version, strings.Join(m.Hooks, ", "))
	if len(m.Faults) > 0 {
		s += "; faults " + strings.Join(m.Faults, ", ")
	}
	return "[agent-harness] " + escape.Line(s+"; file "+path)
}

// checkPluginScenario refuses a scenario name that is neither built in
// nor declared by a loaded plugin.
func checkPluginScenario(name string, set *plugin.Set) error {
	if name == "" || fault.IsScenario(name) || set.Fault(name) != nil {
		return nil
	}
	have := "the loaded plugins declare no fault"
	if names := set.FaultNames(); len(names) > 0 {
		have = "plugin faults: " + strings.Join(names, ", ")
	}
	return usagef("flag --scenario: %q is not a scenario (%s; %s)", name, fault.ScenarioRange(), have)
}

// Extras are the plugins' parts of the session: the fault selected by the
// scenario name, the judge's equivalence hooks and plugin status, and the
// report's plugin list.
func (pp *Plugins) Extras(scenario string) Extras {
	if pp.set == nil {
		return Extras{}
	}
	ex := Extras{
		Equivalences: pp.set.Equivalences(),
		PairCheckers: pp.set.PairCheckers(),
		PluginStatus: pp.set.PluginStatus,
		Plugins:      pp.set.ReportJSON,
	}
	if !fault.IsScenario(scenario) {
		ex.Fault = pp.set.Fault(scenario)
	}
	return ex
}

// Classifiers are the plugins' classify hooks for the classification
// chain (after the explicit globs, before the annotations).
func (pp *Plugins) Classifiers() []classify.Classifier {
	return pp.set.Classifiers()
}

// Disable disables a loaded plugin (a re-judged trace records its
// disabling); without plugins it does nothing.
func (pp *Plugins) Disable(name, detail string) {
	if pp.set != nil {
		pp.set.Disable(name, detail)
	}
}

// Loaded reports whether any plugin is loaded.
func (pp *Plugins) Loaded() bool { return pp.set != nil }

// Attach sends every later plugin failure to sink (the pipeline's
// PluginFailed, which records it in the trace).
func (pp *Plugins) Attach(sink func(plugin, detail string, disabled bool)) {
	pp.sink.Store(&sink)
}

// Close unloads the plugins.
func (pp *Plugins) Close() {
	if pp.set != nil {
		_ = pp.set.Close(context.Background())
	}
}
