package campaign

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/internal/honesty"
	"github.com/cuonztech/agent-harness/internal/peerfile"
	"github.com/cuonztech/agent-harness/internal/stats"
)

// ModelUsage is what the built-in agent's transcript says about the
// model's calls in one run.
type ModelUsage struct {
	Provider     string `json:"provider"`
	Model        string `json:"model"`
	Calls        int    `json:"calls"`
	InputTokens  int64  `json:"inputTokens"`
	OutputTokens int64  `json:"outputTokens"`
	// LatencyMs is the sum of the model calls' latencies.
	LatencyMs float64 `json:"latencyMs"`
	// ProviderFaults counts the provider's errors (an LLM server's 429 or
	// 5xx), never the proxy's faults.
	ProviderFaults int `json:"providerFaults"`
}

// readModel reads the model usage from a transcript; nil when there is
// none or it cannot be read (a transcript is the agent's output: at most
// honesty.MaxFileBytes are read, and nothing in it is trusted).
func readModel(path string) *ModelUsage {
	b, err := peerfile.Read(path, honesty.MaxFileBytes)
	if err != nil {
		return nil
	}
	var t struct {
		Provider   string `json:"provider"`
		Model      string `json:"model"`
		ModelCalls []struct {
			LatencyMs    float64 `json:"latencyMs"`
			InputTokens  int64   `json:"inputTokens"`
			OutputTokens int64   `json:"outputTokens"`
		} `json:"modelCalls"`
		ProviderFaults int `json:"providerFaults"`
	}
	if json.Unmarshal(b, &t) != nil || t.ModelCalls == nil {
		return nil
	}
	u := &ModelUsage{Provider: t.Provider, Model: t.Model, Calls: len(t.ModelCalls), ProviderFaults: max(t.ProviderFaults, 0)}
	for _, c := range t.ModelCalls {
		u.InputTokens += max(c.InputTokens, 0)
		u.OutputTokens += max(c.OutputTokens, 0)
		u.LatencyMs += max(c.LatencyMs, 0)
	}
	return u
}

// ModelStats are the built-in agent's model statistics over the runs with
// a transcript: tokens (input + output) and model latency per run, median
// and p95, and the provider's faults.
type ModelStats struct {
	Runs                   int      `json:"runs"`
	Tokens                 WallTime `json:"tokens"`
	LatencyMs              WallTime `json:"latencyMs"`
	ProviderFaults         int      `json:"providerFaults"`
	ProviderFaultsPerRun   float64  `json:"providerFaultsPerRun"`
	RunsWithProviderFaults int      `json:"runsWithProviderFaults"`
}

// computeModel is nil when no run has a transcript.
func computeModel(rs []Record) *ModelStats {
	var tokens, lat []float64
	m := &ModelStats{}
	for _, r := range rs {
		if r.Model == nil {
			continue
		}
		m.Runs++
		tokens = append(tokens, float64(r.Model.InputTokens+r.Model.OutputTokens))
		lat = append(lat, r.Model.LatencyMs)
		m.ProviderFaults += r.Model.ProviderFaults
		if r.Model.ProviderFaults > 0 {
			m.RunsWithProviderFaults++
		}
	}
	if m.Runs == 0 {
		return nil
	}
	m.ProviderFaultsPerRun = float64(m.ProviderFaults) / float64(m.Runs)
	m.Tokens, m.LatencyMs = quantiles(tokens), quantiles(lat)
	return m
}

func quantiles(xs []float64) WallTime {
	med, ok := stats.Median(xs)
	if !ok {
		return WallTime{}
	}
	p95, _ := stats.Percentile(xs, 95)
	return WallTime{Median: &med, P95: &p95}
}
