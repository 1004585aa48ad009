package main

import (
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/llmagent"
)

// A parameter the Messages API has no field for is not sent, and the
// transcript's notes say so; a loopback server needs no key, a remote one
// does.
func TestNewModelNotesAndKeys(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	temp, seed := 0.5, int64(3)
	_, notes, err := newModel(llmagent.Spec{Provider: "anthropic", Model: "c"}, agentFlags{baseURL: "http://127.0.0.1:9"},
		llmagent.Params{Temperature: &temp, Seed: &seed})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(notes, "\n")
	for _, want := range []string{"--seed not sent", "--temperature not sent", "max_tokens 4096 sent"} {
		if !strings.Contains(got, want) {
			t.Errorf("notes %q lack %q", got, want)
		}
	}
	if _, _, err := newModel(llmagent.Spec{Provider: "openai", Model: "m"}, agentFlags{baseURL: "https://llm.example/v1"}, llmagent.Params{}); err == nil ||
		!strings.Contains(err.Error(), "$OPENAI_API_KEY is not set") {
		t.Errorf("remote server without a key: %v", err)
	}
	if _, notes, err := newModel(llmagent.Spec{Provider: "ollama", Model: "m"}, agentFlags{}, llmagent.Params{}); err != nil || len(notes) != 0 {
		t.Errorf("ollama: %v %v", notes, err)
	}
}
