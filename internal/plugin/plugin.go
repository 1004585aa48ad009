package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"

	"github.com/cuonztech/agent-harness/internal/judge"
)

// Plugin is one loaded plugin: a compiled module, a pool of instances and
// the failure accounting. Its hook adapters (Classifier, Equivalence,
// PairChecker, Faults) are safe for concurrent use.
type Plugin struct {
	path     string
	opts     Options
	manifest Manifest
	config   json.RawMessage
	stats    LoadStats

	runtime   wazero.Runtime
	compiled  wazero.CompiledModule
	ownCache  wazero.CompilationCache // closed with the plugin when Load made it
	log       *capLog
	pool      pool
	faults    []*pluginFault
	closeOnce sync.Once
	closed    atomic.Bool

	calls       atomic.Int64
	failures    atomic.Int64
	consecutive atomic.Int64
	recycled    atomic.Int64
	disabled    atomic.Bool
	// mu orders failures: each is reported (Options.OnFailure) before the
	// counters show it.
	mu             sync.Mutex
	firstFailure   string
	lastFailure    string
	disabledDetail string
}

// LoadStats describes how a plugin was loaded (for `plugin inspect` and
// benchmarks).
type LoadStats struct {
	// Size is the module's size in bytes.
	Size int
	// Compile is the time to compile (or read from the compilation cache).
	Compile time.Duration
	// Instantiate is the time to instantiate the first instance, including
	// the guest's _initialize.
	Instantiate time.Duration
	// Init is the time of ah_manifest and ah_init on the first instance.
	Init time.Duration
	// CacheDir is the compilation cache directory; empty without one.
	CacheDir string
	// MemoryBytes is the first instance's linear memory after ah_init.
	MemoryBytes uint32
	// Imports lists the module's imports as "module.name".
	Imports []string
}

// Manifest returns what the plugin declared.
func (p *Plugin) Manifest() Manifest { return p.manifest }

// Name is the plugin's manifest name.
func (p *Plugin) Name() string { return p.manifest.Name }

// Path is the file the plugin was loaded from.
func (p *Plugin) Path() string { return p.path }

// LoadStats returns how the plugin was loaded.
func (p *Plugin) LoadStats() LoadStats { return p.stats }

// Status is a snapshot of a plugin's health.
type Status struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Path    string   `json:"path"`
	ABI     int      `json:"abi"`
	Hooks   []string `json:"hooks"`
	Faults  []string `json:"faults,omitempty"`
	// Calls counts hook calls that reached an instance.
	Calls int64 `json:"calls"`
	// Failures counts failed hook calls (and failed instance starts).
	Failures int64 `json:"failures"`
	// Disabled is true once the circuit breaker tripped.
	Disabled bool `json:"disabled"`
	// FirstFailure and LastFailure are the details of the first and the
	// latest failure, "" if none.
	FirstFailure string `json:"firstFailure,omitempty"`
	LastFailure  string `json:"lastFailure,omitempty"`
	// Recycled counts instances closed after RecycleCalls calls or at the
	// memory high-water mark.
	Recycled int64 `json:"recycled"`
	// Log is the captured output of the plugin (capped).
	Log string `json:"log,omitempty"`
}

// State is the report file's plugin status: "disabled", "failed" (at least
// one failure) or "ok".
func (s Status) State() string {
	switch {
	case s.Disabled:
		return "disabled"
	case s.Failures > 0:
		return "failed"
	}
	return "ok"
}

// Status returns a snapshot of the plugin's health.
func (p *Plugin) Status() Status {
	p.mu.Lock()
	first, last := p.firstFailure, p.lastFailure
	p.mu.Unlock()
	return Status{
		Name: p.manifest.Name, Version: p.manifest.Version, Path: p.path, ABI: p.manifest.ABI,
		Hooks: p.manifest.Hooks, Faults: p.manifest.Faults,
		Calls: p.calls.Load(), Failures: p.failures.Load(), Disabled: p.disabled.Load(),
		FirstFailure: first, LastFailure: last, Recycled: p.recycled.Load(), Log: p.log.String(),
	}
}

// Health is the plugin's health as the judge reads it (Set.PluginStatus):
// failures of every hook, the first failure's detail (the disabling's when
// none) and whether the plugin is disabled.
func (p *Plugin) Health() judge.PluginState {
	p.mu.Lock()
	defer p.mu.Unlock()
	detail := p.firstFailure
	if detail == "" {
		detail = p.disabledDetail
	}
	return judge.PluginState{Name: p.Name(), Failures: int(p.failures.Load()), Detail: detail, Disabled: p.disabled.Load()}
}

// Disable disables the plugin as its circuit breaker does, without a
// failure: its hooks answer errors without running. detail is the
// disabling's note. Re-judging a trace disables a plugin where the
// recorded session did. It reports whether the plugin was enabled.
func (p *Plugin) Disable(detail string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if !p.disabled.CompareAndSwap(false, true) {
		return false
	}
	p.disabledDetail = detail
	p.pool.drain()
	return true
}

// Close closes every instance, the runtime and, when Load created it, the
// compilation cache. Hook calls after Close fail without being reported.
func (p *Plugin) Close(ctx context.Context) error {
	var err error
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		p.pool.close()
		err = p.runtime.Close(ctx)
		if p.ownCache != nil {
			err = errors.Join(err, p.ownCache.Close(ctx))
		}
	})
	return err
}

// errClosed is returned by hooks of a closed plugin.
var errClosed = errors.New("plugin closed")

// invoke runs hook on a pooled instance and hands the output to parse. A
// failure of either is accounted (OnFailure, counter, circuit breaker) and
// returned wrapped in ErrHook; a disabled plugin returns ErrDisabled
// without calling the guest (that is no failure).
func (p *Plugin) invoke(hook, what string, input []byte, parse func(out []byte) error) error {
	if p.closed.Load() {
		return errClosed
	}
	if p.disabled.Load() {
		return &HookError{Plugin: p.Name(), Detail: "disabled after repeated failures", Disabled: true}
	}
	if len(input) > p.opts.InputLimit {
		return p.fail(what, fmt.Errorf("input of %d bytes exceeds the limit of %d", len(input), p.opts.InputLimit))
	}
	out, err := p.run(hook, input)
	if err == nil {
		if msg, ok := guestError(out); ok {
			err = fmt.Errorf("plugin error: %s", msg)
		} else {
			err = parse(out)
		}
	}
	if err != nil {
		if p.closed.Load() {
			return errClosed
		}
		return p.fail(what, err)
	}
	p.consecutive.Store(0)
	return nil
}

// run calls the hook's export on an instance from the pool.
func (p *Plugin) run(hook string, input []byte) ([]byte, error) {
	in, err := p.pool.get()
	if err != nil {
		return nil, err
	}
	p.calls.Add(1)
	out, err := in.call(in.hooks[hook], input, p.opts.Timeout, p.opts.OutputLimit)
	p.pool.put(in, err == nil)
	return out, err
}

// fail accounts one failure and trips the circuit breaker. The failure
// and a disabling are reported (stderr, OnFailure) before the counters
// show them: whoever reads the status (a report file) finds them in the
// trace already.
func (p *Plugin) fail(what string, err error) error {
	detail := what + ": " + err.Error()
	p.mu.Lock()
	p.report(detail, false)
	p.failures.Add(1)
	if p.firstFailure == "" {
		p.firstFailure = detail
	}
	p.lastFailure = detail
	n := p.consecutive.Add(1)
	disable := n >= int64(p.opts.MaxFailures) && !p.disabled.Load()
	if disable {
		p.disabledDetail = fmt.Sprintf("disabled after %d consecutive failures", n)
		p.report(p.disabledDetail, true)
		p.disabled.Store(true)
	}
	p.mu.Unlock()
	if disable {
		p.pool.drain()
	}
	return &HookError{Plugin: p.Name(), Detail: detail}
}

// HookError is the error of a failed hook call. It matches ErrHook, and
// ErrDisabled when the plugin is disabled, with errors.Is.
type HookError struct {
	Plugin string
	// Detail says what failed, e.g. "classify t: deadline of 100ms exceeded".
	Detail string
	// Disabled: the guest was not called because the plugin is disabled.
	Disabled bool
}

// Error returns "plugin NAME failed: DETAIL" or "plugin NAME disabled …".
func (e *HookError) Error() string {
	if e.Disabled {
		return "plugin " + e.Plugin + " " + e.Detail
	}
	return "plugin " + e.Plugin + " failed: " + e.Detail
}

// Is matches ErrHook and, for a disabled plugin, ErrDisabled.
func (e *HookError) Is(target error) bool {
	return target == ErrHook || e.Disabled && target == ErrDisabled
}

// report prints a failure (or the disabling) on stderr and passes it to
// OnFailure.
func (p *Plugin) report(detail string, disabled bool) {
	p.opts.warnPlugin(p.Name(), detail)
	if p.opts.OnFailure != nil {
		p.opts.OnFailure(p.Name(), detail, disabled)
	}
}

func (o Options) warnPlugin(name, detail string) {
	fmt.Fprintf(o.Log, "[agent-harness] plugin %s failed: %s\n", name, detail)
}

// exportFunc returns the exported function or nil.
func exportFunc(m api.Module, name string) api.Function { return m.ExportedFunction(name) }
