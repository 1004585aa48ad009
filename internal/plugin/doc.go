// Package plugin is the host side of agent-harness WebAssembly plugins
// (docs/behaviour.md §12; the ABI is sdk/ABI.md). It loads .wasm modules with wazero in
// a closed sandbox and adapts their hooks to the interfaces the built-ins
// implement: classify.Classifier, judge.Equivalence, judge.PairChecker and
// fault.Fault (with fault.Settler).
//
// # Loading
//
// Load compiles one module (through an on-disk compilation cache), checks
// its exports, ABI version and imports, creates one instance, reads the
// manifest and runs ah_init, so a bad plugin fails before the session
// starts with a specific error (ErrNotWasm, ErrMissingExport,
// ErrABIVersion, ErrImportNotAllowed, ErrInit, …). LoadAll loads the
// --plugin list with one shared cache and routes --plugin-config by
// manifest name. `agent-harness plugin inspect PATH` prints what Load
// sees.
//
// # Running
//
// Each Plugin keeps a small pool of instances; an instance serves one call
// at a time and is never shared between goroutines. Every call has a
// deadline (wazero's CloseOnContextDone stops even a tight loop), inputs
// and outputs are capped, memory is capped per instance, and instances are
// replaced after RecycleCalls calls or at the memory high-water mark. A
// call that traps, times out or answers garbage is a failure: the instance
// is discarded, Options.OnFailure is called, and the adapter answers
// safely — a failed classifier makes the tool unclassified, a failed
// equivalence falls back to the built-in one, a failed fault passes the
// call through. After MaxFailures consecutive failures the plugin is
// disabled. The plugin keeps its status (failures of every hook, the first
// failure's detail, disabled): Set.PluginStatus is what the judge reads
// for its verdict and report.pluginFailures, Set.Report the report file's
// "plugins" list.
//
// # Wiring (the proxy)
//
//	set, err := plugin.LoadAll(ctx, o.Plugins, o.PluginConfig, plugin.Options{
//		Timeout: o.PluginTimeout, MemoryMiB: o.PluginMemoryMiB, CacheDir: o.PluginCacheDir,
//		KeyFields: kf.Names(), Log: stderr, OnFailure: recordInTrace,
//	})
//	// err: print "[agent-harness] proxy: …" and exit 1 before the upstream starts.
//	defer set.Close(ctx)
//	chain := classify.NewChain(classify.ChainOptions{…, Plugins: set.Classifiers()})
//	judgeCfg.Equivalences, judgeCfg.PairCheckers = set.Equivalences(), set.PairCheckers()
//	judgeCfg.PluginStatus = set.PluginStatus
//	flt := set.Fault(o.Scenario) // nil: a built-in scenario (or an unknown name: usage error)
//	reportMeta.Plugins = set.ReportJSON()  // refresh on every report write
//
// OnFailure sees every failure and the disabling, before the status shows
// them (the proxy writes them to its trace, so that `agent-harness judge`
// finds them); the equiv_key and equiv_same adapters also return the
// failure as an error, which the judge takes as no opinion (the adapters
// implement judge.Namer).
//
// The sandbox and its whitelist live in internal/sandbox; the conformance
// kit for any module is in conformance (`agent-harness plugin check`,
// host/plugincheck, plugintest.Conformance).
package plugin
