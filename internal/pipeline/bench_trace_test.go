package pipeline

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/reportfile"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// cpuTime is the process's user+system CPU time.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkLongSession is the pipeline's CPU per forwarded write after a
// session of `history` distinct writes, with the real judge, a real
// report file and a real trace file in a temporary directory, and
// --report-interval 1s (behaviour §7, §16: at 50,000 at most 2× the cost at
// 1,000). cpu-ns/call counts every goroutine of the process, so the
// report writes the interval lets through (one per second, each the whole
// report) are included.
func BenchmarkLongSession(b *testing.B) {
	for _, history := range []int{1000, 50000} {
		b.Run("history="+strconv.Itoa(history), func(b *testing.B) {
			dir := b.TempDir()
			rep, err := reportfile.New(filepath.Join(dir, "report.json"), reportfile.Options{})
			if err != nil {
				b.Fatal(err)
			}
			start := time.Now()
			tw, err := trace.Create(filepath.Join(dir, "run.trace"), trace.Header{}, start)
			if err != nil {
				b.Fatal(err)
			}
			defer tw.Close()
			p := New(Options{
				Judge:          judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: "F1", Start: start}),
				Fault:          fault.NewGhostWrite(),
				Report:         rep,
				Trace:          tw,
				ReportInterval: time.Second,
				Fatal:          func(err error) { b.Fatal(err) },
			})
			if err := p.Start(); err != nil {
				b.Fatal(err)
			}

			result := relay.Response{Result: json.RawMessage(`{"content":[{"type":"text","text":"create_booking done"}]}`)}
			forward := func(context.Context) (relay.Response, error) { return result, nil }
			id := int64(0)
			call := func() {
				id++
				args := `{"room":"r` + strconv.FormatInt(id, 10) + `","date":"2026-11-03"}`
				c := &relay.ToolCall{ID: id, Tool: "create_booking", Class: classify.Write, AcceptsKey: true,
					Arguments: json.RawMessage(args), Params: json.RawMessage(`{"name":"create_booking","arguments":` + args + `}`)}
				if _, err := p.HandleCall(context.Background(), c, forward); err != nil {
					b.Fatal(err)
				}
			}
			for range history {
				call()
			}
			cpu0 := cpuTime()
			n := 0
			for b.Loop() {
				call()
				n++
			}
			b.ReportMetric(float64(cpuTime()-cpu0)/float64(n), "cpu-ns/call")
			// The final write, before the directory goes: a deferred write
			// due later then has nothing left to write.
			if err := p.OnSessionEnd(); err != nil {
				b.Fatal(err)
			}
		})
	}
}
