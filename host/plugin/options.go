package plugin

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Defaults of Options. Each applies when its field is zero.
const (
	DefaultTimeout         = 100 * time.Millisecond
	DefaultMemoryMiB       = 128
	DefaultInputLimit      = 1 << 20
	DefaultOutputLimit     = 1 << 20
	DefaultRecycleCalls    = 10_000
	DefaultMaxFailures     = 5
	DefaultPoolSize        = 4
	DefaultMaxInstances    = 8
	DefaultStartTimeout    = 5 * time.Second
	DefaultLogLimit        = 64 << 10
	DefaultMaxDelay        = 10 * time.Minute
	defaultCacheSubdir     = "agent-harness/wazero"
	minTimeout, maxTimeout = time.Millisecond, 60 * time.Second
	maxMemoryMiB           = 4096
)

// Options configures loading and running plugins. The zero value is valid:
// every zero field means its documented default. Options are validated
// once, by Load or LoadAll.
type Options struct {
	// Timeout is the deadline of one hook call (--plugin-timeout).
	// Default 100 ms; 1 ms–60 s. A call that runs longer is stopped, its
	// instance discarded and the call counted as a failure.
	Timeout time.Duration
	// StartTimeout bounds creating one instance: running the module's
	// _initialize and ah_init. Default 5 s.
	StartTimeout time.Duration
	// MemoryMiB caps the linear memory of each instance (--plugin-memory).
	// Default 128; 1–4096. A guest that grows beyond it gets memory.grow =
	// -1 (a Go guest then dies with "out of memory": a failure).
	MemoryMiB int
	// RecycleMemoryMiB: an instance whose memory reached this size after a
	// call is closed instead of being reused (linear memory never shrinks).
	// Default: half of MemoryMiB.
	RecycleMemoryMiB int
	// RecycleCalls: an instance is closed after this many calls. Default
	// 10,000.
	RecycleCalls int
	// InputLimit caps the JSON input of one hook call in bytes. Default
	// 1 MiB. A larger input is not sent; the call fails.
	InputLimit int
	// OutputLimit caps the JSON output of one hook call in bytes. Default
	// 1 MiB. A larger output is a failure.
	OutputLimit int
	// MaxFailures disables a plugin after this many consecutive failures
	// (the circuit breaker). Default 5.
	MaxFailures int
	// PoolSize is how many idle instances are kept for reuse. Default 4.
	PoolSize int
	// MaxInstances caps the instances of one plugin alive at once; a call
	// waits for a free one. Default 8.
	MaxInstances int
	// MaxDelay caps the delays a fault hook may ask for. Default 10 min.
	MaxDelay time.Duration
	// CacheDir holds wazero's compilation cache (--plugin-cache-dir).
	// Default os.UserCacheDir()/agent-harness/wazero. When it cannot be
	// created the plugin is compiled without a file cache and a warning is
	// written to Log.
	CacheDir string
	// NoCache disables the file compilation cache.
	NoCache bool
	// Log receives the plugins' captured output (fd 1, fd 2,
	// agent_harness.log), one line per write, prefixed
	// "[agent-harness] plugin NAME: ", and host warnings. nil discards it.
	// In proxy mode this is stderr, never stdout.
	Log io.Writer
	// LogLimit caps the bytes of output kept and forwarded per plugin.
	// Default 64 KiB; the rest is dropped with one notice.
	LogLimit int
	// KeyFields are the key-field names passed to equivalence hooks
	// (--key-fields). Default ["idempotency_key"].
	KeyFields []string
	// Config is the plugin's configuration JSON passed to ah_init by Load.
	// nil passes null. LoadAll takes configurations by plugin name instead.
	Config json.RawMessage
	// OnFailure is called once per failed call, of any hook, and once when
	// a plugin is disabled (disabled true), with the plugin's manifest name
	// and a short detail, before the plugin's status shows it; the proxy
	// records it in the trace. The status itself is the plugin's
	// (Set.PluginStatus). It is called on the goroutine of the failing
	// call — for equiv_key and equiv_same inside judge.Apply — with the
	// plugin's failure lock held: it must not call the plugin or wait for
	// the judge.
	OnFailure func(plugin, detail string, disabled bool)
}

// resolve validates o and fills in defaults.
func (o Options) resolve() (Options, error) {
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.Timeout < minTimeout || o.Timeout > maxTimeout {
		return o, fmt.Errorf("plugin timeout %v is not between 1ms and 60s", o.Timeout)
	}
	if o.StartTimeout == 0 {
		o.StartTimeout = DefaultStartTimeout
	}
	if o.StartTimeout < 0 {
		return o, fmt.Errorf("plugin start timeout %v is negative", o.StartTimeout)
	}
	if o.MemoryMiB == 0 {
		o.MemoryMiB = DefaultMemoryMiB
	}
	if o.MemoryMiB < 1 || o.MemoryMiB > maxMemoryMiB {
		return o, fmt.Errorf("plugin memory %d MiB is not between 1 and %d", o.MemoryMiB, maxMemoryMiB)
	}
	if o.RecycleMemoryMiB == 0 {
		o.RecycleMemoryMiB = (o.MemoryMiB + 1) / 2
	}
	for _, f := range []struct {
		name string
		v    *int
		def  int
	}{
		{"recycle memory", &o.RecycleMemoryMiB, 0},
		{"recycle calls", &o.RecycleCalls, DefaultRecycleCalls},
		{"input limit", &o.InputLimit, DefaultInputLimit},
		{"output limit", &o.OutputLimit, DefaultOutputLimit},
		{"max failures", &o.MaxFailures, DefaultMaxFailures},
		{"pool size", &o.PoolSize, DefaultPoolSize},
		{"max instances", &o.MaxInstances, DefaultMaxInstances},
		{"log limit", &o.LogLimit, DefaultLogLimit},
	} {
		if *f.v == 0 {
			*f.v = f.def
		}
		if *f.v < 0 {
			return o, fmt.Errorf("plugin %s %d is negative", f.name, *f.v)
		}
	}
	if o.MaxDelay == 0 {
		o.MaxDelay = DefaultMaxDelay
	}
	if o.MaxDelay < 0 {
		return o, fmt.Errorf("plugin max delay %v is negative", o.MaxDelay)
	}
	if len(o.KeyFields) == 0 {
		o.KeyFields = []string{"idempotency_key"}
	}
	if o.CacheDir == "" && !o.NoCache {
		dir, err := DefaultCacheDir()
		if err != nil {
			o.NoCache = true
			o.warn("no compilation cache: %v", err)
		} else {
			o.CacheDir = dir
		}
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	return o, nil
}

// DefaultCacheDir returns os.UserCacheDir()/agent-harness/wazero.
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("finding the user cache directory: %w", err)
	}
	return filepath.Join(dir, filepath.FromSlash(defaultCacheSubdir)), nil
}

func (o Options) warn(format string, args ...any) {
	if o.Log != nil {
		fmt.Fprintf(o.Log, "[agent-harness] plugin host: "+format+"\n", args...)
	}
}
