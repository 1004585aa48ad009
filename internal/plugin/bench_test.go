package plugin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/plugin"
	"github.com/cuonztech/agent-harness/internal/plugin/plugintest"
	"github.com/cuonztech/agent-harness/internal/state"
	"github.com/cuonztech/agent-harness/plugins/minimal"
)

// benchArgs is a typical write call (112 bytes).
var benchArgs = json.RawMessage(`{"date":"03.11.2026","guest":"Ada Lovelace","room":"12B","nights":2,"amount":129.00,"idempotency_key":"k-1"}`)

// reportMedian times every iteration and reports the median, which is
// what BENCHMARKS.md quotes (the mean hides the distribution).
func reportMedian(b *testing.B, f func()) {
	b.Helper()
	d := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start := time.Now()
		f()
		d = append(d, time.Since(start))
	}
	b.StopTimer()
	slices.Sort(d)
	b.ReportMetric(float64(d[len(d)/2].Nanoseconds())/1000, "median-µs")
}

func minimalPath(b *testing.B) string {
	p := filepath.Join(b.TempDir(), "minimal.wasm")
	if err := os.WriteFile(p, minimal.Wasm, 0o644); err != nil {
		b.Fatal(err)
	}
	return p
}

// BenchmarkHook is the per-write-call cost of an equivalence: the Go dates
// plugin and the minimal WAT plugin through the host (JSON input, copy,
// deadline, call, output), against the built-in canonical key.
func BenchmarkHook(b *testing.B) {
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		path func(b *testing.B) string
	}{
		{"dates", func(b *testing.B) string { return plugintest.Build(b, "./plugins/dates") }},
		{"minimal", minimalPath},
	} {
		b.Run(bc.name, func(b *testing.B) {
			p, err := plugin.Load(ctx, bc.path(b), plugin.Options{CacheDir: sharedCache(b)})
			if err != nil {
				b.Fatal(err)
			}
			defer p.Close(ctx)
			e := p.Equivalence()
			if _, _, err := e.Key("create_booking", benchArgs); err != nil {
				b.Fatal(err)
			}
			reportMedian(b, func() { e.Key("create_booking", benchArgs) })
		})
	}
	b.Run("builtin-canon", func(b *testing.B) {
		kf := canon.ParseKeyFields(nil)
		reportMedian(b, func() { canon.Operation("create_booking", benchArgs, kf) })
	})
}

// BenchmarkLoad is the plugin load time: cold (empty compilation cache)
// and warm (the cache directory filled by an earlier process; each Load
// opens it anew, as a new proxy process would). It also reports the
// linear memory of one instance after init.
func BenchmarkLoad(b *testing.B) {
	ctx := context.Background()
	for _, pkg := range []string{"./plugins/dates"} {
		path := plugintest.Build(b, pkg)
		b.Run("cold", func(b *testing.B) {
			reportMedian(b, func() {
				p, err := plugin.Load(ctx, path, plugin.Options{CacheDir: b.TempDir()})
				if err != nil {
					b.Fatal(err)
				}
				p.Close(ctx)
			})
		})
		b.Run("warm", func(b *testing.B) {
			dir := b.TempDir()
			p, err := plugin.Load(ctx, path, plugin.Options{CacheDir: dir})
			if err != nil {
				b.Fatal(err)
			}
			mem := p.LoadStats().MemoryBytes
			p.Close(ctx)
			reportMedian(b, func() {
				p, err := plugin.Load(ctx, path, plugin.Options{CacheDir: dir})
				if err != nil {
					b.Fatal(err)
				}
				p.Close(ctx)
			})
			b.ReportMetric(float64(mem)/(1<<20), "MiB/instance")
		})
	}
}

// BenchmarkStateHook is one call of the bookingstate plugin's state hook
// with n create_booking operations of distinct guests: the cost the
// judge adds once per run, when the after snapshot comes.
func BenchmarkStateHook(b *testing.B) {
	ctx := context.Background()
	path := plugintest.Build(b, "./plugins/bookingstate")
	p, err := plugin.Load(ctx, path, plugin.Options{CacheDir: plugintest.CacheDir(b), Timeout: 10 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	defer p.Close(ctx)
	for _, n := range []int{2, 10, 100} {
		in := judge.StateInput{Before: state.Snapshot{At: "before", Counters: map[string]json.Number{}},
			After: state.Snapshot{At: "after", Counters: map[string]json.Number{}}}
		for i := range n {
			guest := fmt.Sprintf("g%d", i)
			in.Operations = append(in.Operations, judge.StateOperation{ID: fmt.Sprintf("op-%d", i+1), Tool: "create_booking",
				Arguments: json.RawMessage(`{"guest":"` + guest + `","date":"2027-01-02"}`), Executions: 1})
			in.After.Counters["bookings:"+guest] = "1"
		}
		b.Run(fmt.Sprintf("ops=%d", n), func(b *testing.B) {
			reportMedian(b, func() {
				if out, err := p.State().Attribute(in); err != nil || len(out) != n {
					b.Fatal(out, err)
				}
			})
		})
	}
}
