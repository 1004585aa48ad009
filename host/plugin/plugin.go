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
	mu          sync.Mutex
	lastFailure string
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
	// LastFailure is the detail of the latest failure, "" if none.
	LastFailure string `json:"lastFailure,omitempty"`
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
	last := p.lastFailure
	p.mu.Unlock()
	return Status{
		Name: p.manifest.Name, Version: p.manifest.Version, Path: p.path, ABI: p.manifest.ABI,
		Hooks: p.manifest.Hooks, Faults: p.manifest.Faults,
		Calls: p.calls.Load(), Failures: p.failures.Load(), Disabled: p.disabled.Load(),
		LastFailure: last, Recycled: p.recycled.Load(), Log: p.log.String(),
	}
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
// failure of either is accounted (counter, circuit breaker, OnFailure) and
// returned wrapped in ErrHook; a disabled plugin returns ErrDisabled
// without calling the guest.
//
// notify says whether a failure goes to Options.OnFailure: true for the
// classify and fault hooks; false for equiv_key and equiv_same, whose
// errors the judge records itself (reporting them twice would count them
// twice).
func (p *Plugin) invoke(hook, what string, notify bool, input []byte, parse func(out []byte) error) error {
	if p.closed.Load() {
		return errClosed
	}
	if p.disabled.Load() {
		return &HookError{Plugin: p.Name(), Detail: "disabled after repeated failures", Disabled: true}
	}
	if len(input) > p.opts.InputLimit {
		return p.fail(what, notify, fmt.Errorf("input of %d bytes exceeds the limit of %d", len(input), p.opts.InputLimit))
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
		return p.fail(what, notify, err)
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

// fail accounts one failure and trips the circuit breaker; notify passes
// the failure to OnFailure (the disabling always is).
func (p *Plugin) fail(what string, notify bool, err error) error {
	detail := what + ": " + err.Error()
	p.failures.Add(1)
	p.mu.Lock()
	p.lastFailure = detail
	p.mu.Unlock()
	p.report(detail, notify)
	if n := p.consecutive.Add(1); n >= int64(p.opts.MaxFailures) && p.disabled.CompareAndSwap(false, true) {
		p.report(fmt.Sprintf("disabled after %d consecutive failures", n), true)
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

func (p *Plugin) report(detail string, notify bool) {
	p.opts.warnPlugin(p.Name(), detail)
	if notify && p.opts.OnFailure != nil {
		p.opts.OnFailure(p.Name(), detail)
	}
}

func (o Options) warnPlugin(name, detail string) {
	fmt.Fprintf(o.Log, "[agent-harness] plugin %s failed: %s\n", name, detail)
}

// exportFunc returns the exported function or nil.
func exportFunc(m api.Module, name string) api.Function { return m.ExportedFunction(name) }
