package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Sizes of BenchmarkStateEveryWrite (issue 22: the cost per call at 1,000
// writes).
const (
	stateBenchWrites = 1000
	// stateBenchProbeEvery: the probe command runs alone after every
	// 30th write of each session (34 runs a session), timed apart.
	stateBenchProbeEvery = 30
)

// stateBenchProbe is BenchmarkStateEveryWrite's probe: the test upstream's
// totals file (run in the upstream's directory), zero before the first
// write.
const stateBenchProbe = `cat t.json 2>/dev/null || echo '{"create_booking":0}'`

// BenchmarkStateEveryWrite measures what --state-every-write costs per
// call (behaviour §16.1): stateBenchWrites sequential create_booking
// calls, each its own operation, through `agent-harness proxy` over the
// test upstream, in three sessions: without a probe, with the before and
// after snapshots only, and with a snapshot after every write; their order
// rotates from one iteration to the next. Reported: each session's mean
// per call in ms (the calls' round trips, request to answer; start-up and
// the before and after snapshots are outside them), what
// --state-every-write adds per call over no probe, and the probe
// command's own time (`sh -c` in the upstream's directory, the median of
// the runs of a round), run by the benchmark itself between writes of all
// three sessions so the machine's noise hits it as it hits them, and
// left out of their times — the target is added ≤ that + 5 ms. A session
// whose probe failed or whose upstream did not execute every write fails
// the benchmark. One line per iteration (round) in the log.
//
//	go test -run '^$' -bench StateEveryWrite -benchtime 3x ./internal/e2e
//
// (Without -race: under -race the proxy is built with the race detector.)
func BenchmarkStateEveryWrite(b *testing.B) {
	probe := []string{"--state-command", stateBenchProbe, "--state-map", "create_booking=create_booking"}
	variants := [][]string{nil, probe, append(slices.Clone(probe), "--state-every-write")}
	built(b, "agent-harness") // the builds outside the timed loop
	built(b, "upstream")
	b.Logf("load average at start: %s", loadAvg())
	sum := make([]float64, len(variants)) // ms per call, summed over rounds
	var probeSum float64
	rounds := 0
	for b.Loop() {
		ms := make([]float64, len(variants))
		var probeRuns []time.Duration
		for k := range variants {
			j := (rounds + k) % len(variants)
			var runs []time.Duration
			ms[j], runs = stateBenchSession(b, variants[j])
			probeRuns = append(probeRuns, runs...)
		}
		alone := median(probeRuns) / 1000
		rounds++
		b.Logf("round %d: no probe %.3f ms/call, before/after snapshots only %.3f, --state-every-write %.3f; the probe alone %.3f ms",
			rounds, ms[0], ms[1], ms[2], alone)
		for j := range ms {
			sum[j] += ms[j]
		}
		probeSum += alone
	}
	b.Logf("load average at end: %s", loadAvg())
	n := float64(rounds)
	b.ReportMetric(sum[0]/n, "no-probe-ms/call")
	b.ReportMetric(sum[1]/n, "before-after-ms/call")
	b.ReportMetric(sum[2]/n, "every-write-ms/call")
	b.ReportMetric((sum[2]-sum[0])/n, "every-write-added-ms/call")
	b.ReportMetric(probeSum/n, "probe-alone-ms")
}

// stateBenchSession runs one session of stateBenchWrites writes through a
// new proxy with the given state flags and returns its mean per call in
// ms, and the times of the probe command run alone after every
// stateBenchProbeEvery-th write (not in the mean). The upstream counts its
// executions in t.json, in its own directory, where the probe runs.
func stateBenchSession(b *testing.B, stateFlags []string) (msPerCall float64, probeRuns []time.Duration) {
	b.Helper()
	dir := b.TempDir()
	flags := append([]string{"--audit-tools", "off", "--quiet", "--upstream-cwd", dir,
		"--upstream-env-var", "UPSTREAM_TOTALS_FILE=" + filepath.Join(dir, "t.json")}, stateFlags...)
	p := startProxy(b, nil, append(flags, "--upstream-command", built(b, "upstream"))...)
	p.initialize()
	p.request(`2`, "tools/list", `{}`)
	var elapsed time.Duration
	for i := range stateBenchWrites {
		start := time.Now()
		resp := p.request(strconv.Itoa(10+i), "tools/call", fmt.Sprintf(`{"name":"create_booking","arguments":{"room":"%d"}}`, i))
		elapsed += time.Since(start)
		if !bytes.Contains(resp, []byte(`"result"`)) || bytes.Contains(resp, []byte(`"isError":true`)) {
			b.Fatalf("write %d answered %.300s", i, resp)
		}
		if i%stateBenchProbeEvery == 0 {
			probeRuns = append(probeRuns, stateBenchProbeAlone(b, dir))
		}
	}
	if code, _ := p.closeAndWait(); code != 0 {
		b.Fatalf("proxy %v exited %d; stderr:\n%s", stateFlags, code, p.stderr.String())
	}
	if strings.Contains(p.stderr.String(), "state probe") {
		b.Fatalf("proxy %v: the probe failed:\n%s", stateFlags, p.stderr.String())
	}
	raw, err := os.ReadFile(filepath.Join(dir, "t.json"))
	if err != nil {
		b.Fatal(err)
	}
	var totals map[string]int
	if err := json.Unmarshal(raw, &totals); err != nil || totals["create_booking"] != stateBenchWrites {
		b.Fatalf("the upstream's totals %s (%v), want %d executions of create_booking", raw, err, stateBenchWrites)
	}
	return float64(elapsed) / float64(time.Millisecond) / stateBenchWrites, probeRuns
}

// stateBenchProbeAlone runs the probe command once as the proxy does
// (`sh -c` in the upstream's directory dir) and returns its time.
func stateBenchProbeAlone(b *testing.B, dir string) time.Duration {
	b.Helper()
	cmd := exec.Command("sh", "-c", stateBenchProbe)
	cmd.Dir = dir
	start := time.Now()
	out, err := cmd.Output()
	d := time.Since(start)
	if err != nil || !bytes.HasPrefix(out, []byte(`{"create_booking":`)) {
		b.Fatalf("the probe alone: %v, %q", err, out)
	}
	return d
}
