// Package sandbox provides the only host functions a plugin may import: a
// whitelisted subset of wasi_snapshot_preview1 (what the Go runtime needs,
// none of it reaching files, network, environment or the real clock) and the
// optional agent_harness.log. Every function finds its per-instance state in
// the call's context (WithEnv), so one host module serves all instances of a
// runtime.
package sandbox

import (
	"context"
	"encoding/binary"
	"math/rand/v2"
	"sync"
	"time"
)

// Epoch is where every fake wall clock starts: 2026-01-01T00:00:00Z.
var Epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// ClockStep is how far a fake clock advances on each reading, so that
// successive readings differ (Go's runtime expects time to move) while
// staying a pure function of the number of readings.
const ClockStep = time.Microsecond

// Env is the per-instance state behind the host functions.
type Env struct {
	// Log receives what the guest writes to stdout (fd 1), stderr (fd 2) or
	// through agent_harness.log. It is called with the instance's lock
	// held by the caller's goroutine; it must not block for long.
	Log func(stream string, p []byte)

	mu      sync.Mutex
	elapsed time.Duration
	rng     *rand.ChaCha8
}

// Seed is the fixed seed of every instance's random_get stream.
var Seed = [32]byte{'a', 'g', 'e', 'n', 't', '-', 'h', 'a', 'r', 'n', 'e', 's', 's', ' ', 'w', 'a', 's', 'i', ' ', 'r', 'a', 'n', 'd', 'o', 'm', ' ', 'v', '1'}

// NewEnv returns the state of a fresh instance: clock at Epoch, random
// stream at its start.
func NewEnv(log func(stream string, p []byte)) *Env {
	return &Env{Log: log, rng: rand.NewChaCha8(Seed)}
}

// now advances the fake clock by one step and returns the elapsed time
// since Epoch.
func (e *Env) now() time.Duration {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.elapsed += ClockStep
	return e.elapsed
}

// sleep advances the fake clock by d without waiting.
func (e *Env) sleep(d time.Duration) {
	if d <= 0 {
		return
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.elapsed += d
}

// read fills p from the deterministic random stream.
func (e *Env) read(p []byte) {
	e.mu.Lock()
	defer e.mu.Unlock()
	var b [8]byte
	for len(p) > 0 {
		binary.LittleEndian.PutUint64(b[:], e.rng.Uint64())
		n := copy(p, b[:])
		p = p[n:]
	}
}

type envKey struct{}

// WithEnv returns ctx carrying e for the host functions.
func WithEnv(ctx context.Context, e *Env) context.Context {
	return context.WithValue(ctx, envKey{}, e)
}

// envFrom returns the Env of ctx, or a throw-away one (no logging) when the
// caller forgot WithEnv: the functions stay deterministic either way.
func envFrom(ctx context.Context) *Env {
	if e, ok := ctx.Value(envKey{}).(*Env); ok {
		return e
	}
	return NewEnv(nil)
}
