package e2e

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// BenchmarkProxyPeakRSS measures the proxy's peak resident memory
// (VmHWM of /proc/<pid>/status) when it relays one 100 MB message: a
// tools/call whose arguments hold 100 MB (agent → upstream, judged and
// recorded in the report file), and a 100 MB result line (upstream →
// agent). Reported: the peak in MB and as a multiple of the message.
//
//	go test -run '^$' -bench ProxyPeakRSS -benchtime 1x ./internal/e2e
func BenchmarkProxyPeakRSS(b *testing.B) {
	const size = 100 << 20
	cases := []struct {
		name string
		run  func(p *peer)
	}{
		{"agent-100MB", func(p *peer) {
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"` + strings.Repeat("x", size) + `"}}}`)
			p.until("2")
		}},
		{"upstream-100MB", func(p *peer) {
			p.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big_result","arguments":{"bytes":` + strconv.Itoa(size) + `}}}`)
			p.until("2")
		}},
	}
	for _, c := range cases {
		b.Run(c.name, func(b *testing.B) {
			var peak int64
			for b.Loop() {
				report := filepath.Join(b.TempDir(), "report.json")
				p := startProxy(b, nil, append(upstreamFlags(b), "--audit-tools", "off", "--report-file", report)...)
				p.initialize()
				c.run(p)
				peak = vmHWM(b, p.cmd.Process.Pid)
				p.closeAndWait()
			}
			b.ReportMetric(float64(peak)/(1<<20), "MB-peak")
			b.ReportMetric(float64(peak)/size, "x-message")
		})
	}
}

// vmHWM is the peak resident set size of a process, in bytes.
func vmHWM(tb testing.TB, pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		tb.Skipf("no /proc: %v", err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			var kb int64
			fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), &kb)
			return kb << 10
		}
	}
	tb.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
