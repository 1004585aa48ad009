package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync/atomic"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/plugin"
)

// proxyPlugins are the --plugin modules of one proxy run (behaviour §12). The
// zero value (no --plugin) has none and adds nothing.
type proxyPlugins struct {
	set *plugin.Set
	// sink is where plugin failures go (attach): the pipeline, which
	// exists only after the plugins were loaded. No hook runs before it
	// is attached (loading runs only ah_init, whose failure is a load
	// error); the plugins count every failure themselves anyway.
	sink atomic.Pointer[func(plugin, detail string, disabled bool)]
}

// onFailure is the plugins' Options.OnFailure: it passes the failure to
// the attached sink.
func (pp *proxyPlugins) onFailure(plugin, detail string, disabled bool) {
	if f := pp.sink.Load(); f != nil {
		(*f)(plugin, detail, disabled)
	}
}

// loadProxyPlugins loads the --plugin modules, after the report file
// target was checked and before the scenario is built and the upstream
// started. A module that does not load is its error (one stderr line and
// exit 1, cmdExit), with a "failed" report file when one was asked for; a
// --scenario name that is neither F1–F5 nor a fault of a loaded plugin is a
// usageError (exit 2) naming the faults there are. Without --plugin nothing is
// loaded and the compilation cache is not touched.
func loadProxyPlugins(ctx context.Context, o proxyOptions, report pipeline.ReportWriter, stderr io.Writer) (*proxyPlugins, error) {
	pp := &proxyPlugins{}
	if len(o.Plugins) == 0 {
		return pp, nil
	}
	opts := o.PluginLimits
	opts.Timeout, opts.MemoryMiB, opts.CacheDir = o.PluginTimeout, o.PluginMemoryMiB, o.PluginCacheDir
	opts.KeyFields = canon.ParseKeyFields(o.KeyFields).Names()
	opts.Log, opts.OnFailure = stderr, pp.onFailure
	set, err := plugin.LoadAll(ctx, o.Plugins, o.PluginConfig, opts)
	if err != nil {
		reportStartupFailed(o, report, err, stderr)
		return nil, err
	}
	pp.set = set
	if err := checkPluginScenario(o.Scenario, set); err != nil {
		pp.close()
		return nil, err
	}
	for _, p := range set.Plugins() {
		fmt.Fprintln(stderr, pluginLoadedLine(p.Manifest(), p.Path()))
	}
	return pp, nil
}

// pluginLoadedLine is the start-up stderr line of one loaded plugin
// (behaviour §12.3): its name and version, its hooks (and faults), and the
// file it came from. Printed with --quiet too: a plugin changes what the
// judge counts as one operation, so a run never uses one unannounced.
func pluginLoadedLine(m plugin.Manifest, path string) string {
	s := fmt.Sprintf("plugin loaded: %s %s, hooks %s", m.Name, m.Version, strings.Join(m.Hooks, ", "))
	if len(m.Faults) > 0 {
		s += "; faults " + strings.Join(m.Faults, ", ")
	}
	return "[agent-harness] " + escape.Line(s+"; file "+path)
}

// checkPluginScenario refuses a --scenario name that is neither built in
// nor declared by a loaded plugin.
func checkPluginScenario(name string, set *plugin.Set) error {
	if name == "" || isBuiltinScenario(name) || set.Fault(name) != nil {
		return nil
	}
	have := "the loaded plugins declare no fault"
	if names := set.FaultNames(); len(names) > 0 {
		have = "plugin faults: " + strings.Join(names, ", ")
	}
	return usagef("flag --scenario: %q is not a scenario (%s; %s)", name, fault.ScenarioRange(), have)
}

// extras are the plugins' parts of the scenario: the fault selected by
// --scenario, the judge's equivalence hooks and plugin status, and the
// report's plugin list.
func (pp *proxyPlugins) extras(scenario string) scenarioExtras {
	if pp.set == nil {
		return scenarioExtras{}
	}
	ex := scenarioExtras{
		Equivalences: pp.set.Equivalences(),
		PairCheckers: pp.set.PairCheckers(),
		PluginStatus: pp.set.PluginStatus,
		Plugins:      pp.set.ReportJSON,
	}
	if !isBuiltinScenario(scenario) {
		ex.Fault = pp.set.Fault(scenario)
	}
	return ex
}

// classifiers are the plugins' classify hooks for the classification
// chain (after the explicit globs, before the annotations).
func (pp *proxyPlugins) classifiers() []classify.Classifier {
	return pp.set.Classifiers()
}

// attach sends every later plugin failure to sink (the pipeline's
// PluginFailed, which records it in the trace).
func (pp *proxyPlugins) attach(sink func(plugin, detail string, disabled bool)) {
	pp.sink.Store(&sink)
}

// close unloads the plugins.
func (pp *proxyPlugins) close() {
	if pp.set != nil {
		_ = pp.set.Close(context.Background())
	}
}
