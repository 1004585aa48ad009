package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
)

// callEvents are the four events of one forwarded F1 write.
func callEvents(id int64, at time.Time) []judge.Event {
	args := `{"room":"r` + strconv.FormatInt(id, 10) + `","date":"2026-11-03"}`
	return []judge.Event{
		{Kind: judge.EventCall, Time: at, Call: id, Tool: "create_booking", Class: classify.Write, AcceptsKey: true,
			Params: json.RawMessage(`{"name":"create_booking","arguments":` + args + `}`)},
		{Kind: judge.EventForwarded, Time: at.Add(time.Microsecond), Call: id},
		{Kind: judge.EventAnswer, Time: at.Add(2 * time.Millisecond), Call: id, Outcome: judge.Executed,
			ResponseDigest: "5f1e", Result: json.RawMessage(`{"content":[{"type":"text","text":"create_booking done"}]}`)},
		{Kind: judge.EventDelivered, Time: at.Add(2*time.Millisecond + time.Microsecond), Call: id},
	}
}

// BenchmarkRecord is the cost of appending one event line to a real trace
// file after `history` writes (flat: O(1) per event).
func BenchmarkRecord(b *testing.B) {
	for _, history := range []int{100, 5000} {
		b.Run("history="+strconv.Itoa(history), func(b *testing.B) {
			start := time.Now()
			w, err := Create(filepath.Join(b.TempDir(), "run.trace"), Header{}, start)
			if err != nil {
				b.Fatal(err)
			}
			defer w.Close()
			id := int64(0)
			for range history {
				id++
				for _, ev := range callEvents(id, start) {
					w.Record(ev)
				}
			}
			evs := callEvents(id+1, start)
			i := 0
			for b.Loop() {
				if err := w.Record(evs[i%4]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkJudgeTrace reads and re-judges a 100,000-event trace (25,000
// forwarded writes, behaviour §14.2: < 1 s) from memory.
func BenchmarkJudgeTrace(b *testing.B) {
	path := filepath.Join(b.TempDir(), "run.trace")
	start := time.Now()
	w, err := Create(path, Header{Settings: Settings{Scenario: "F1", Mode: "deterministic", Kind: "proxy"}}, start)
	if err != nil {
		b.Fatal(err)
	}
	// The proxy lists the tools before the first call (the reader checks
	// each call's class against its listing).
	w.Record(judge.Event{Kind: judge.EventTools, Time: start, Tools: []string{"create_booking"}, Listing: []classify.Entry{{
		Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"},
		Definition: json.RawMessage(`{"name":"create_booking","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"}}}}`)}}})
	for id := int64(1); id <= 25000; id++ {
		for _, ev := range callEvents(id, start.Add(time.Duration(id)*3*time.Millisecond)) {
			w.Record(ev)
		}
	}
	w.Close()
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(data)))
	cpu0, n := cpuTime(), 0
	for b.Loop() {
		n++
		tr, err := Read(bytes.NewReader(data))
		if err != nil || len(tr.Lines) != 100001 {
			b.Fatal(err)
		}
		j, meta := rejudge(tr, Options{Settings: tr.Header.Settings})
		j.AppendFile(nil, meta)
	}
	b.ReportMetric(float64(cpuTime()-cpu0)/float64(n)/1e6, "cpu-ms/op")
}

// cpuTime is the process's user+system CPU time (the machine running
// benchmarks may be shared: wall time alone overstates the cost).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
