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
// disabled. Set.Report gives the report file's "plugins" list.
//
// # Wiring (the proxy)
//
//	fails := &plugin.Failures{}
//	set, err := plugin.LoadAll(ctx, o.Plugins, o.PluginConfig, plugin.Options{
//		Timeout: o.PluginTimeout, MemoryMiB: o.PluginMemoryMiB, CacheDir: o.PluginCacheDir,
//		KeyFields: kf.Names(), Log: stderr, OnFailure: fails.Report,
//	})
//	// err: print "[agent-harness] proxy: …" and exit 1 before the upstream starts.
//	defer set.Close(ctx)
//	chain := classify.NewChain(classify.ChainOptions{…, Plugins: set.Classifiers()})
//	judgeCfg.Equivalences, judgeCfg.PairCheckers = set.Equivalences(), set.PairCheckers()
//	flt := set.Fault(o.Scenario) // nil: a built-in scenario (or an unknown name: usage error)
//	reportMeta.Plugins = set.ReportJSON()  // refresh on every report write
//	fails.Attach(func(name, detail string) { /* judge.Event{Kind: judge.EventPluginFailure, Plugin: name, Detail: detail} */ })
//
// OnFailure carries classify and fault failures and the disabling of a
// plugin; equiv_key and equiv_same failures are returned as errors, which
// the judge records itself (the adapters implement judge.Namer).
//
// The sandbox and its whitelist live in internal/sandbox; the conformance
// kit for any module is in plugintest.
package plugin
