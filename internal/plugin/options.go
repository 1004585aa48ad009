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
	DefaultTimeout      = 100 * time.Millisecond
	DefaultMemoryMiB    = 128
	DefaultInputLimit   = 1 << 20
	DefaultOutputLimit  = 1 << 20
	DefaultRecycleCalls = 10_000
	DefaultMaxFailures  = 5
	DefaultPoolSize     = 4
	DefaultMaxInstances = 8
	DefaultStartTimeout = 5 * time.Second
	DefaultLogLimit     = 64 << 10
	DefaultMaxDelay     = 10 * time.Minute
	defaultCacheSubdir  = "agent-harness/wazero"
)

// Limit is one numeric field of Options: the flag that sets it, its
// default and its range. Limits is the one table of them: resolve
// validates Options against it and the command line builds its --plugin-*
// flags, their usage and their range messages from it.
type Limit struct {
	// Flag is the command-line flag without "--": "plugin-timeout".
	Flag string
	// Duration: the field is a time.Duration and Default, Min and Max
	// are nanoseconds; else a whole number of Unit.
	Duration bool
	Unit     string
	// Default applies when the field is zero; 0 = computed (the recycle
	// memory: half of MemoryMiB).
	Default int64
	// Min and Max bound the value in Options.
	Min, Max int64
	// FlagMin, when above Min, is the command line's lower bound: a byte
	// limit under 1 KiB fails every real call, so the flags refuse it,
	// while Options allow it (tests use tiny ones).
	FlagMin int64
	field   func(o *Options) any // *int or *time.Duration
}

// Get returns the limit's field of o.
func (l Limit) Get(o *Options) int64 {
	switch p := l.field(o).(type) {
	case *int:
		return int64(*p)
	case *time.Duration:
		return int64(*p)
	}
	panic("plugin: bad Limit field")
}

// Set stores v in the limit's field of o.
func (l Limit) Set(o *Options, v int64) {
	switch p := l.field(o).(type) {
	case *int:
		*p = int(v)
	case *time.Duration:
		*p = time.Duration(v)
	}
}

// LowestFlag is the command line's lower bound: FlagMin when set, else Min.
func (l Limit) LowestFlag() int64 { return max(l.Min, l.FlagMin) }

// Limits are the numeric options, in the order of the proxy's usage.
var Limits = []Limit{
	{Flag: "plugin-timeout", Duration: true, Default: int64(DefaultTimeout), Min: int64(time.Millisecond), Max: int64(time.Minute),
		field: func(o *Options) any { return &o.Timeout }},
	{Flag: "plugin-memory", Unit: "MiB", Default: DefaultMemoryMiB, Min: 1, Max: 4096,
		field: func(o *Options) any { return &o.MemoryMiB }},
	{Flag: "plugin-start-timeout", Duration: true, Default: int64(DefaultStartTimeout), Min: int64(time.Millisecond), Max: int64(10 * time.Minute),
		field: func(o *Options) any { return &o.StartTimeout }},
	{Flag: "plugin-input-limit", Unit: "bytes", Default: DefaultInputLimit, Min: 1, FlagMin: 1024, Max: 256 << 20,
		field: func(o *Options) any { return &o.InputLimit }},
	{Flag: "plugin-output-limit", Unit: "bytes", Default: DefaultOutputLimit, Min: 1, FlagMin: 1024, Max: 256 << 20,
		field: func(o *Options) any { return &o.OutputLimit }},
	{Flag: "plugin-log-limit", Unit: "bytes", Default: DefaultLogLimit, Min: 1, Max: 64 << 20,
		field: func(o *Options) any { return &o.LogLimit }},
	{Flag: "plugin-recycle-calls", Unit: "calls", Default: DefaultRecycleCalls, Min: 1, Max: 1_000_000_000,
		field: func(o *Options) any { return &o.RecycleCalls }},
	{Flag: "plugin-recycle-memory", Unit: "MiB", Min: 1, Max: 4096,
		field: func(o *Options) any { return &o.RecycleMemoryMiB }},
	{Flag: "plugin-max-failures", Unit: "failures", Default: DefaultMaxFailures, Min: 1, Max: 1_000_000,
		field: func(o *Options) any { return &o.MaxFailures }},
	{Flag: "plugin-pool-size", Unit: "instances", Default: DefaultPoolSize, Min: 1, Max: 64,
		field: func(o *Options) any { return &o.PoolSize }},
	{Flag: "plugin-max-instances", Unit: "instances", Default: DefaultMaxInstances, Min: 1, Max: 64,
		field: func(o *Options) any { return &o.MaxInstances }},
	{Flag: "plugin-max-delay", Duration: true, Default: int64(DefaultMaxDelay), Min: int64(time.Millisecond), Max: int64(24 * time.Hour),
		field: func(o *Options) any { return &o.MaxDelay }},
}

// LimitOf returns the limit set by flag, nil when there is none.
func LimitOf(flag string) *Limit {
	for i := range Limits {
		if Limits[i].Flag == flag {
			return &Limits[i]
		}
	}
	return nil
}

// Range shows a range as the messages and the usage do: 1ms–60s,
// 1024–268435456 bytes.
func (l Limit) Range(lo int64) string {
	if l.Duration {
		return ShortDuration(time.Duration(lo)) + "–" + ShortDuration(time.Duration(l.Max))
	}
	return fmt.Sprintf("%d–%d %s", lo, l.Max, l.Unit)
}

// ShortDuration shows d in the first unit (ms, s, m, h) in which it is a
// whole number below 100 (1ms, 60s, 10m, 24h), else as d.String().
func ShortDuration(d time.Duration) string {
	for _, u := range []struct {
		d    time.Duration
		name string
	}{{time.Millisecond, "ms"}, {time.Second, "s"}, {time.Minute, "m"}, {time.Hour, "h"}} {
		if d%u.d == 0 && d/u.d < 100 {
			return fmt.Sprintf("%d%s", d/u.d, u.name)
		}
	}
	return d.String()
}

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
	for _, l := range Limits {
		v := l.Get(&o)
		if v == 0 {
			v = l.Default
			if l.Flag == "plugin-recycle-memory" {
				v = int64(o.MemoryMiB+1) / 2 // MemoryMiB comes first in Limits
			}
			l.Set(&o, v)
		}
		if v < l.Min || v > l.Max {
			shown := fmt.Sprint(v)
			if l.Duration {
				shown = time.Duration(v).String()
			}
			return o, fmt.Errorf("plugin option %s %s is out of range (%s)", l.Flag, shown, l.Range(l.Min))
		}
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
