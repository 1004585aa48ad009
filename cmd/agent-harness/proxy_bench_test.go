package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkProxyAddedLatency measures, in one run with real processes, the
// round trip of a small tools/call: directly to the test upstream, through
// a bare byte-copying relay (testdata/byterelay, the physical floor), and
// through `agent-harness proxy`. The three are interleaved call by call so
// machine noise hits them alike. Reported: the direct median and the
// median added by each relay (µs), and proxy-added / byterelay-added.
//
//	go test -run '^$' -bench ProxyAddedLatency -benchtime 3000x ./cmd/agent-harness
//
// (Without -race: under -race the proxy is built with the race detector.)
func BenchmarkProxyAddedLatency(b *testing.B) {
	up := e2eBinary(b, "upstream")
	variants := []struct {
		name string
		p    *peer
	}{
		{"direct", startPeer(b, nil, up)},
		{"byterelay", startPeer(b, nil, e2eBinary(b, "byterelay"), up)},
		{"proxy", startProxy(b, nil, "--upstream-command", up)},
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
	med := make([]float64, len(variants))
	for j := range variants {
		med[j] = median(samples[j])
	}
	b.ReportMetric(med[0], "direct-µs")
	b.ReportMetric(med[1]-med[0], "byterelay-added-µs")
	b.ReportMetric(med[2]-med[0], "proxy-added-µs")
	if d := med[1] - med[0]; d > 0 {
		b.ReportMetric((med[2]-med[0])/d, "proxy/byterelay")
	}
	for _, v := range variants {
		v.p.closeAndWait()
	}
}

// median returns the median of ds in microseconds.
func median(ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	m := s[len(s)/2]
	if len(s)%2 == 0 {
		m = (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return float64(m) / float64(time.Microsecond)
}
