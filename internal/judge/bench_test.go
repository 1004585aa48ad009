package judge

import (
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

// prefill returns the events of a session with n distinct write operations,
// each executed once with a key, plus a read every tenth call.
func prefill(n int) []Event {
	evs := make([]Event, 0, 3*n)
	for i := range n {
		id := int64(i + 1)
		tm := t0.Add(time.Duration(i) * time.Millisecond)
		args := json.RawMessage(fmt.Sprintf(`{"guest":"guest-%d","date":"2026-11-03","amount":%d.50,"idempotency_key":"k-%d"}`, i, i, i))
		evs = append(evs,
			Event{Kind: EventCall, Time: tm, Call: id, Tool: "create_booking", Class: classify.Write, Arguments: args, AcceptsKey: true},
			Event{Kind: EventForwarded, Time: tm, Call: id},
			Event{Kind: EventAnswer, Time: tm, Call: id, Outcome: Executed, ResponseDigest: "d" + strconv.Itoa(i)},
		)
	}
	return evs
}

// BenchmarkApply measures the cost per event of a write call (call,
// forwarded, answer of a new operation) in a session that already holds n
// distinct write operations. The session is rebuilt (timer stopped) every
// max(100, n/5) iterations, so its size stays within [n, n+max(100, n/5)]:
// 100–200 and 5,000–6,000 operations.
func BenchmarkApply(b *testing.B) {
	for _, n := range []int{100, 5000} {
		b.Run("ops="+strconv.Itoa(n), func(b *testing.B) {
			base := prefill(n)
			cfg := Config{Scenario: "F4"}
			j := Replay(cfg, base)
			evs := make([]Event, 3)
			period := max(100, n/5)
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if i%period == 0 && i > 0 {
					b.StopTimer()
					j = Replay(cfg, base)
					b.StartTimer()
				}
				id := int64(n + i + 1)
				tm := t0.Add(time.Hour + time.Duration(i)*time.Millisecond)
				args := json.RawMessage(`{"guest":"new-` + strconv.Itoa(i) + `","date":"2026-11-03","amount":12.50}`)
				evs[0] = Event{Kind: EventCall, Time: tm, Call: id, Tool: "create_booking", Class: classify.Write, Arguments: args, AcceptsKey: true}
				evs[1] = Event{Kind: EventForwarded, Time: tm, Call: id}
				evs[2] = Event{Kind: EventAnswer, Time: tm, Call: id, Outcome: Executed}
				for _, ev := range evs {
					j.Apply(ev)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(3*b.N), "ns/event")
		})
	}
}

// BenchmarkAppendFile measures the report-file encoding at 5,000
// operations: "full" re-encodes every operation (the first write of a
// replayed session), "incremental" after one operation changed (the hot
// path: one write per event).
func BenchmarkAppendFile(b *testing.B) {
	const n = 5000
	j := Replay(Config{Scenario: "F4"}, prefill(n))
	meta := report.FileMeta{Status: "running", ToolClassification: toolTable}
	buf := j.AppendFile(nil, meta)
	b.Run("ops=5000/full", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			for _, op := range j.opSeq {
				j.markDirty(op)
			}
			for _, ks := range j.keys.seq {
				j.markKeyDirty(ks)
			}
			buf = j.AppendFile(buf[:0], meta)
		}
		b.SetBytes(int64(len(buf)))
	})
	b.Run("ops=5000/incremental", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			j.markDirty(j.opSeq[i%n])
			buf = j.AppendFile(buf[:0], meta)
		}
		b.SetBytes(int64(len(buf)))
	})
}
