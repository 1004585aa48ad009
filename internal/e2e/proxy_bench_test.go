package e2e

import (
	"fmt"
	"os"
	"strings"
	"testing"
	"time"
)

// BenchmarkProxyAddedLatency measures, in one run with real processes, the
// round trip of a small tools/call: directly to the test upstream, through
// a bare byte-copying relay (testdata/byterelay, the physical floor), and
// through `agent-harness proxy`. The three are interleaved call by call so
// machine noise hits them alike. Reported: the direct median and the
// median added by each relay (µs), proxy-added / byterelay-added, and the
// CPU time each relay process itself spent per call (µs, Linux), which
// depends less on the load of a shared machine.
//
//	go test -run '^$' -bench ProxyAddedLatency -benchtime 3000x ./internal/e2e
//
// With AGENT_HARNESS_BENCH_BASELINE=/path/to/agent-harness (another build,
// e.g. of the commit before a change) that binary runs as a fourth
// variant, "baseline", interleaved with the others: a before/after
// comparison inside one run, which a loaded machine allows far better than
// two separate runs.
//
// (Without -race: under -race the proxy is built with the race detector.)
func BenchmarkProxyAddedLatency(b *testing.B) {
	up := built(b, "upstream")
	variants := []struct {
		name string
		p    *peer
	}{
		{"direct", startPeer(b, nil, up)},
		{"byterelay", startPeer(b, nil, built(b, "byterelay"), up)},
		{"proxy", startProxy(b, nil, "--upstream-command", up)},
	}
	if base := os.Getenv(benchBaselineEnv); base != "" {
		variants = append(variants, struct {
			name string
			p    *peer
		}{"baseline", startPeer(b, nil, base, "proxy", "--upstream-command", up)})
	}
	call := func(p *peer, id int) time.Duration {
		start := time.Now()
		p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_booking","arguments":{"id":"b1"}}}`, id))
		resp := p.read()
		d := time.Since(start)
		if !strings.Contains(string(resp), fmt.Sprintf(`"id":%d,`, id)) {
			b.Fatalf("unexpected answer %.200s", resp)
		}
		return d
	}
	for _, v := range variants {
		v.p.initialize()
		for i := range 200 { // warm up
			call(v.p, 1_000_000+i)
		}
	}
	samples := make([][]time.Duration, len(variants))
	cpu0 := make([]time.Duration, len(variants))
	for j, v := range variants {
		cpu0[j] = processCPU(v.p.cmd.Process.Pid)
	}
	id := 10
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		for k := range variants {
			j := (i + k) % len(variants)
			id++
			samples[j] = append(samples[j], call(variants[j].p, id))
		}
	}
	b.StopTimer()
	for j, v := range variants[1:] {
		if c := processCPU(v.p.cmd.Process.Pid); c > 0 {
			b.ReportMetric(float64(c-cpu0[j+1])/float64(time.Microsecond)/float64(len(samples[j+1])), v.name+"-cpu-µs/call")
		}
	}
	med := make([]float64, len(variants))
	for j := range variants {
		med[j] = median(samples[j])
	}
	b.ReportMetric(med[0], "direct-µs")
	for j, v := range variants[1:] {
		b.ReportMetric(med[j+1]-med[0], v.name+"-added-µs")
		if d := med[1] - med[0]; d > 0 && j > 0 {
			b.ReportMetric((med[j+1]-med[0])/d, v.name+"/byterelay")
		}
	}
	for _, v := range variants {
		v.p.closeAndWait()
	}
}
