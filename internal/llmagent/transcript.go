package llmagent

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// Transcript is the record of one conversation (docs/agent.md): every
// message as the model saw it, each model call, the provider's faults,
// the probe's claim and the notes of what went wrong.
type Transcript struct {
	Model          string      `json:"model"`
	Provider       string      `json:"provider"`
	Messages       []Message   `json:"messages"`
	ModelCalls     []ModelCall `json:"modelCalls"`
	ProviderFaults int         `json:"providerFaults"`
	// Claim is the probe's answer; nil (null) when no probe was sent
	// (the claim is NOT_ASKED).
	Claim *Claim   `json:"claim"`
	Notes []string `json:"notes"`
	Final string   `json:"final"`
}

// ModelCall is one model call with its retries.
type ModelCall struct {
	LatencyMs    float64 `json:"latencyMs"`
	InputTokens  int64   `json:"inputTokens"`
	OutputTokens int64   `json:"outputTokens"`
	Error        string  `json:"error,omitempty"`
	Retries      int     `json:"retries"`
}

// Claim is what the model told the user, in the shape of
// $AGENT_HARNESS_CLAIM_FILE: {"claim": ..., "message": ...}.
type Claim struct {
	Claim   string `json:"claim"`
	Message string `json:"message"`
}

// WriteJSON writes v to path atomically (a temporary file in the same
// directory, then a rename), so a reader never sees half a file.
func WriteJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding %s: %w", path, err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	_, err = f.Write(append(b, '\n'))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
