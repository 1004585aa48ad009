package plugin

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/cuonztech/agent-harness/internal/plugin/internal/sandbox"
	"github.com/cuonztech/agent-harness/sdk/abi"
)

// maxModuleSize bounds the .wasm file read at load.
const maxModuleSize = 256 << 20

// Load compiles, checks and starts the plugin at path: the module must be a
// WebAssembly reactor implementing ABI v1 (sdk/ABI.md) that imports only
// whitelisted functions. One instance is created, its manifest read and
// ah_init called with opts.Config, so a bad plugin fails here and not
// during a run.
//
// # Errors
//
// Wrapped sentinels: ErrNotWasm, ErrMissingExport ("missing export
// ah_alloc"), ErrSignature, ErrABIVersion ("wrong ABI version 2 (want 1)"),
// ErrImportNotAllowed ("import not allowed:
// wasi_snapshot_preview1.path_open"), ErrManifest, ErrInit ("init failed:
// msg"); also invalid options, unreadable files and compile errors.
func Load(ctx context.Context, path string, opts Options) (*Plugin, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	cache := newCache(o)
	p, err := load(ctx, path, o, cache, func(string) json.RawMessage { return o.Config })
	if err != nil {
		if cache != nil {
			_ = cache.Close(ctx)
		}
		return nil, err
	}
	p.ownCache = cache
	return p, nil
}

// newCache opens the file compilation cache, or returns nil (with a
// warning) when it cannot.
func newCache(o Options) wazero.CompilationCache {
	if o.NoCache {
		return nil
	}
	c, err := wazero.NewCompilationCacheWithDir(o.CacheDir)
	if err != nil {
		o.warn("compilation cache %s unusable, compiling without it: %v", o.CacheDir, err)
		return nil
	}
	return c
}

// load does Load's work with resolved options, a shared cache (may be nil)
// and the configuration of the plugin by manifest name.
func load(ctx context.Context, path string, o Options, cache wazero.CompilationCache, config func(name string) json.RawMessage) (_ *Plugin, err error) {
	defer func() {
		if err != nil {
			err = fmt.Errorf("loading plugin %s: %w", path, err)
		}
	}()
	bin, err := readModule(path)
	if err != nil {
		return nil, err
	}
	p := &Plugin{path: path, opts: o, stats: LoadStats{Size: len(bin)}}
	p.log = newCapLog(o.Log, filepath.Base(path), o.LogLimit)

	start := time.Now()
	p.runtime, p.compiled, err = compile(ctx, o, cache, bin)
	if err != nil {
		return nil, err
	}
	p.stats.Compile = time.Since(start)
	if cache != nil {
		p.stats.CacheDir = o.CacheDir
	}
	rt := p.runtime
	defer func() {
		if err != nil {
			_ = rt.Close(ctx)
		}
	}()
	if p.stats.Imports, err = checkImports(p.compiled); err != nil {
		return nil, err
	}
	if err = checkExports(p.compiled); err != nil {
		return nil, err
	}

	p.pool = pool{
		size:   o.PoolSize,
		sem:    make(chan struct{}, max(o.MaxInstances, 1)),
		create: p.newInstance,
		startTimeout: func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), o.StartTimeout)
		},
		recycle:   p.shouldRecycle,
		onRecycle: func() { p.recycled.Add(1) },
	}

	startCtx, cancel := context.WithTimeout(ctx, o.StartTimeout)
	defer cancel()
	start = time.Now()
	in, err := p.instantiate(startCtx)
	if err != nil {
		return nil, err
	}
	p.stats.Instantiate = time.Since(start)
	start = time.Now()
	if err = p.readManifest(in); err != nil {
		in.close()
		return nil, err
	}
	p.log.setName(p.manifest.Name)
	p.config = config(p.manifest.Name)
	if err = p.initInstance(in); err != nil {
		in.close()
		return nil, err
	}
	p.stats.Init = time.Since(start)
	p.stats.MemoryBytes = in.memoryBytes()
	p.pool.seed(in)
	for _, name := range p.manifest.Faults {
		p.faults = append(p.faults, &pluginFault{p: p, name: name})
	}
	return p, nil
}

func readModule(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > maxModuleSize {
		return nil, fmt.Errorf("module is %d bytes, more than the %d allowed", st.Size(), maxModuleSize)
	}
	bin := make([]byte, st.Size())
	if _, err := f.ReadAt(bin, 0); err != nil && st.Size() > 0 {
		return nil, err
	}
	if len(bin) < 8 || !bytes.Equal(bin[:4], []byte("\x00asm")) {
		return nil, ErrNotWasm
	}
	if !bytes.Equal(bin[4:8], []byte{1, 0, 0, 0}) {
		return nil, fmt.Errorf("%w: binary version %x is not 1 (a component? only core modules are plugins)", ErrNotWasm, bin[4:8])
	}
	return bin, nil
}

// compile creates the plugin's runtime with the sandbox host modules and
// compiles bin. A compile error with the file cache is retried without it:
// wazero fails (rather than recompiles) on a corrupt cache entry.
func compile(ctx context.Context, o Options, cache wazero.CompilationCache, bin []byte) (wazero.Runtime, wazero.CompiledModule, error) {
	r, cm, err := compileWith(ctx, o, cache, bin)
	if err != nil && cache != nil {
		r2, cm2, err2 := compileWith(ctx, o, nil, bin)
		if err2 == nil {
			o.warn("compilation cache %s failed (%v); compiled without it (delete the directory to rebuild the cache)", o.CacheDir, err)
			return r2, cm2, nil
		}
	}
	return r, cm, err
}

func compileWith(ctx context.Context, o Options, cache wazero.CompilationCache, bin []byte) (wazero.Runtime, wazero.CompiledModule, error) {
	cfg := wazero.NewRuntimeConfig().
		// A hook call past its deadline must stop even in a tight loop.
		WithCloseOnContextDone(true).
		WithMemoryLimitPages(uint32(o.MemoryMiB) * 16)
	if cache != nil {
		cfg = cfg.WithCompilationCache(cache)
	}
	r := wazero.NewRuntimeWithConfig(ctx, cfg)
	if err := sandbox.Instantiate(ctx, r); err != nil {
		_ = r.Close(ctx)
		return nil, nil, err
	}
	cm, err := r.CompileModule(ctx, bin)
	if err != nil {
		_ = r.Close(ctx)
		return nil, nil, fmt.Errorf("compiling: %w", err)
	}
	return r, cm, nil
}

// checkImports refuses any import outside the sandbox whitelist, naming
// all of them, and returns the import list.
func checkImports(cm wazero.CompiledModule) ([]string, error) {
	var all, bad []string
	for _, f := range cm.ImportedFunctions() {
		mod, name, _ := f.Import()
		qual := mod + "." + name
		if !slices.Contains(all, qual) {
			all = append(all, qual)
		}
		sig, ok := sandbox.Allowed(mod, name)
		if !ok {
			if !slices.Contains(bad, qual) {
				bad = append(bad, qual)
			}
			continue
		}
		if !slices.Equal(sig.Params, f.ParamTypes()) || !slices.Equal(sig.Results, f.ResultTypes()) {
			return all, fmt.Errorf("%w: import %s is %s, want %s", ErrSignature, qual,
				signature(f.ParamTypes(), f.ResultTypes()), signature(sig.Params, sig.Results))
		}
	}
	for _, m := range cm.ImportedMemories() {
		mod, name, _ := m.Import()
		bad = append(bad, mod+"."+name+" (memory)")
	}
	if len(bad) > 0 {
		return all, fmt.Errorf("%w: %s (the sandbox has no files, network, environment or real clock; see sdk/ABI.md)",
			ErrImportNotAllowed, joinComma(bad))
	}
	return all, nil
}

// abiMarker matches any version's marker (abi.ExportMarker for v1).
var abiMarker = regexp.MustCompile(`^` + abi.ExportPrefix + `abi_v([0-9]+)$`)

// exportSig lists the fixed exports and their signatures.
var exportSig = []struct {
	name            string
	params, results []api.ValueType
}{
	{abi.ExportAlloc, []api.ValueType{api.ValueTypeI32}, []api.ValueType{api.ValueTypeI32}},
	{abi.ExportFree, []api.ValueType{api.ValueTypeI32}, nil},
	{abi.ExportManifest, nil, []api.ValueType{api.ValueTypeI64}},
}

var hookParams = []api.ValueType{api.ValueTypeI32, api.ValueTypeI32}
var hookResults = []api.ValueType{api.ValueTypeI64}

// checkExports checks the ABI marker, memory and fixed exports; hook
// exports are checked against the manifest later.
func checkExports(cm wazero.CompiledModule) error {
	exports := cm.ExportedFunctions()
	var versions []int
	for name := range exports {
		if m := abiMarker.FindStringSubmatch(name); m != nil {
			v, _ := strconv.Atoi(m[1])
			versions = append(versions, v)
		}
	}
	slices.Sort(versions)
	switch {
	case slices.Contains(versions, ABIVersion):
	case len(versions) > 0:
		return fmt.Errorf("%w %d (want %d)", ErrABIVersion, versions[0], ABIVersion)
	default:
		return fmt.Errorf("%w %s (not an agent-harness plugin, or built for another ABI)", ErrMissingExport, abi.ExportMarker)
	}
	if _, ok := exports["_start"]; ok {
		if _, ok := exports["_initialize"]; !ok {
			return fmt.Errorf("module is a command (exports _start): build a reactor, e.g. go build -buildmode=c-shared")
		}
	}
	if _, ok := cm.ExportedMemories()[abi.ExportMemory]; !ok {
		return fmt.Errorf("%w %s", ErrMissingExport, abi.ExportMemory)
	}
	for _, e := range exportSig {
		if err := checkFunc(exports, e.name, e.params, e.results); err != nil {
			return err
		}
	}
	if _, ok := exports[abi.ExportInit]; ok {
		if err := checkFunc(exports, abi.ExportInit, hookParams, hookResults); err != nil {
			return err
		}
	}
	return nil
}

func checkFunc(exports map[string]api.FunctionDefinition, name string, params, results []api.ValueType) error {
	f, ok := exports[name]
	if !ok {
		return fmt.Errorf("%w %s", ErrMissingExport, name)
	}
	if !slices.Equal(f.ParamTypes(), params) || !slices.Equal(f.ResultTypes(), results) {
		return fmt.Errorf("%w: export %s is %s, want %s", ErrSignature, name,
			signature(f.ParamTypes(), f.ResultTypes()), signature(params, results))
	}
	return nil
}

// instantiate creates an instance and runs the module's _initialize.
func (p *Plugin) instantiate(ctx context.Context) (*instance, error) {
	env := sandbox.NewEnv(p.log.write)
	ictx := sandbox.WithEnv(context.Background(), env)
	cfg := wazero.NewModuleConfig().WithName("").WithStartFunctions("_initialize")
	// Instantiate with a context that carries env and ctx's deadline.
	runCtx, cancel := mergeDeadline(ictx, ctx)
	defer cancel()
	mod, err := p.runtime.InstantiateModule(runCtx, p.compiled, cfg)
	if err != nil {
		return nil, fmt.Errorf("instantiating: %w", shortError(runCtx, err))
	}
	in := &instance{
		mod: mod, env: env, ctx: ictx,
		alloc: exportFunc(mod, abi.ExportAlloc), free: exportFunc(mod, abi.ExportFree),
		init: exportFunc(mod, abi.ExportInit), hooks: map[string]api.Function{},
	}
	for hook, export := range hookExports {
		if f := exportFunc(mod, export); f != nil {
			in.hooks[hook] = f
		}
	}
	return in, nil
}

// readManifest calls ah_manifest on the first instance and checks the
// declared hooks' exports.
func (p *Plugin) readManifest(in *instance) error {
	out, err := in.callNoInput(exportFunc(in.mod, abi.ExportManifest), p.opts.StartTimeout, p.opts.OutputLimit)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrManifest, err)
	}
	m, err := parseManifest(out)
	if err != nil {
		return err
	}
	exports := p.compiled.ExportedFunctions()
	for _, h := range m.Hooks {
		if err := checkFunc(exports, hookExports[h], hookParams, hookResults); err != nil {
			return fmt.Errorf("hook %s: %w", h, err)
		}
	}
	p.manifest = m
	return nil
}

// initInstance passes the configuration to ah_init. Without ah_init a
// configuration other than null is an error.
func (p *Plugin) initInstance(in *instance) error {
	cfg := p.config
	if len(bytes.TrimSpace(cfg)) == 0 {
		cfg = json.RawMessage("null")
	}
	if !json.Valid(cfg) {
		return fmt.Errorf("%w: configuration is not valid JSON", ErrInit)
	}
	if in.init == nil {
		if string(cfg) != "null" {
			return fmt.Errorf("%w: the plugin takes no configuration (no ah_init export)", ErrInit)
		}
		return nil
	}
	out, err := in.call(in.init, cfg, p.opts.StartTimeout, p.opts.OutputLimit)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrInit, err)
	}
	if msg, ok := guestError(out); ok {
		return fmt.Errorf("%w: %s", ErrInit, msg)
	}
	if len(out) > 0 && !json.Valid(out) {
		return fmt.Errorf("%w: ah_init returned invalid JSON", ErrInit)
	}
	return nil
}

// newInstance creates and initialises another instance for the pool.
func (p *Plugin) newInstance(ctx context.Context) (*instance, error) {
	in, err := p.instantiate(ctx)
	if err != nil {
		return nil, err
	}
	if err := p.initInstance(in); err != nil {
		in.close()
		return nil, err
	}
	return in, nil
}

// shouldRecycle is true after RecycleCalls calls or at the memory
// high-water mark.
func (p *Plugin) shouldRecycle(in *instance) bool {
	return in.calls >= p.opts.RecycleCalls || int64(in.memoryBytes()) >= int64(p.opts.RecycleMemoryMiB)<<20
}
