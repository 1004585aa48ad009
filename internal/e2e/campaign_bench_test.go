package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/campaign"
)

// BenchmarkStartupToInitialize measures, interleaved, the time from
// starting a process to its answer to initialize: the sample server
// directly, and the proxy in front of it (behaviour §14.2: ≤ 50 ms above the
// upstream's own start).
func BenchmarkStartupToInitialize(b *testing.B) {
	bin := built(b, "agent-harness")
	report := filepath.Join(b.TempDir(), "report.json")
	setups := [][]string{
		{"sample-server"},
		{"proxy", "--audit-tools", "off", "--scenario", "F1", "--report-file", report, "--", bin, "sample-server"},
	}
	var samples [2][]float64
	b.ResetTimer()
	for range b.N {
		for j, args := range setups {
			samples[j] = append(samples[j], timeToInitialize(b, bin, args))
		}
	}
	med := func(xs []float64) float64 { sort.Float64s(xs); return xs[len(xs)/2] }
	d, p := med(samples[0]), med(samples[1])
	b.ReportMetric(d, "upstream-ms")
	b.ReportMetric(p, "proxy-ms")
	b.ReportMetric(p-d, "proxy-added-ms")
}

func timeToInitialize(b *testing.B, bin string, args []string) float64 {
	cmd := exec.Command(bin, args...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	stdin.Write([]byte(rpcRequest("1", "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"b","version":"1"}}`) + "\n"))
	r := bufio.NewReader(stdout)
	if _, err := r.ReadBytes('\n'); err != nil {
		b.Fatal(err)
	}
	el := time.Since(start)
	stdin.Close()
	cmd.Wait()
	return float64(el.Microseconds()) / 1000
}

// BenchmarkCampaignOverhead runs campaigns of 200 reference-agent runs (F1,
// careful) at --parallel 1 and 2 and reports the campaign's wall time
// divided by the sum of the runs' own wall times / parallel (behaviour §14.2:
// ≤ 1.1).
func BenchmarkCampaignOverhead(b *testing.B) {
	benchCampaignOverhead(b, "--behaviour", "careful")
}

// benchCampaignOverhead runs 200-run F1 campaigns of `agent AGENT...` at
// --parallel 1 and 2 and reports the campaign's wall time over the sum of
// the runs' own wall times / parallel.
func benchCampaignOverhead(b *testing.B, agent ...string) {
	bin := built(b, "agent-harness")
	for _, parallel := range []int{1, 2} {
		b.Run("parallel="+strconv.Itoa(parallel), func(b *testing.B) {
			var ratios []float64
			for range b.N {
				out := filepath.Join(b.TempDir(), "c")
				args := []string{"campaign", "--quiet", "--runs", "200", "--scenarios", "F1", "--parallel", strconv.Itoa(parallel),
					"--out", out, "--upstream-command", bin, "--upstream-arg", "sample-server", "--", bin, "agent"}
				cmd := exec.Command(bin, append(append(args, agent...), "--mcp-config", "{mcp_config}")...)
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				wall := time.Since(start)
				var s campaign.Summary
				raw, _ := os.ReadFile(filepath.Join(out, "campaign.json"))
				if err := json.Unmarshal(raw, &s); err != nil {
					b.Fatal(err)
				}
				var sum float64
				for _, r := range s.Runs {
					sum += r.AgentWallMs
				}
				ratios = append(ratios, float64(wall.Milliseconds())/(sum/float64(parallel)))
				b.ReportMetric(float64(wall.Milliseconds()), "campaign-ms")
				b.ReportMetric(sum/200, "run-ms")
			}
			sort.Float64s(ratios)
			b.ReportMetric(ratios[len(ratios)/2], "overhead-ratio")
		})
	}
}
