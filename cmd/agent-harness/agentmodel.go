package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"github.com/cuonztech/agent-harness/internal/llmagent"
	"github.com/cuonztech/agent-harness/internal/refagent"
)

// modelOnlyFlags are the agent flags that only --model reads.
var modelOnlyFlags = []string{"base-url", "api-key-env", "task", "user", "system-prompt", "max-steps", "temperature",
	"max-tokens", "model-timeout", "tool-timeout", "show-is-error", "probe", "probe-text", "transcript"}

// defaultTask is the first user message when --task is not given: the
// reference agent's booking.
const defaultTask = "Book a double room for Ada Lovelace on 2026-11-03."

// runModelAgent is `agent-harness agent --model` (docs/agent.md): it
// checks the flags (exit 2), the key (exit 1), connects to the MCP server
// (exit 1), runs the conversation and writes the transcript and the claim
// file, also when the conversation ended early or was interrupted.
func runModelAgent(ctx context.Context, a agentFlags, given func(flag string) bool, stdout, stderr io.Writer) error {
	fail := func(format string, args ...any) error { return usagef(format, args...) }
	spec, err := llmagent.ParseSpec(a.model)
	if err != nil {
		return fail("flag --model: %s", err)
	}
	o := llmagent.Options{Provider: spec.Provider, ModelName: spec.Model, Task: defaultTask, Users: a.users,
		ShowIsError: true, Probe: a.probe, ProbeText: a.probeText, Stdout: stdout, Stderr: stderr}
	if a.task != "" {
		o.Task = a.task
	}
	if a.baseURL != "" && spec.Provider == "script" {
		return fail("flag --base-url: a script model has no server")
	}
	if a.keyEnv != "" && (spec.Provider == "script" || spec.Provider == "ollama") {
		return fail("flag --api-key-env: %s needs no key", spec.Provider)
	}
	if a.probeText != "" && !a.probe {
		return fail("flag --probe-text needs --probe")
	}
	if given("max-steps") {
		n, err := strconv.Atoi(a.maxSteps)
		if err != nil || n < 1 || n > 10000 {
			return fail("flag --max-steps: %q is not a whole number from 1 to 10000", a.maxSteps)
		}
		o.MaxSteps = n
	}
	if given("temperature") {
		t, err := strconv.ParseFloat(a.temperature, 64)
		if err != nil || t < 0 || t > 2 {
			return fail("flag --temperature: %q is not a number from 0 to 2", a.temperature)
		}
		o.Params.Temperature = &t
	}
	if given("max-tokens") {
		n, err := strconv.ParseInt(a.maxTokens, 10, 64)
		if err != nil || n < 1 {
			return fail("flag --max-tokens: %q is not a positive whole number", a.maxTokens)
		}
		o.Params.MaxTokens = &n
	}
	if given("seed") {
		n, err := strconv.ParseInt(a.seed, 10, 64)
		if err != nil {
			return fail("flag --seed: %q is not a 64-bit integer", a.seed)
		}
		o.Params.Seed = &n
	}
	for _, d := range []struct {
		name, v string
		dst     *time.Duration
	}{{"model-timeout", a.modelTimeout, &o.ModelTimeout}, {"tool-timeout", a.toolTimeout, &o.ToolTimeout}} {
		if d.v == "" {
			continue
		}
		v, err := time.ParseDuration(d.v)
		if err != nil || v <= 0 {
			return fail("flag --%s: %q is not a positive duration like 30s or 2m", d.name, d.v)
		}
		*d.dst = v
	}
	switch a.showIsError {
	case "", "on":
	case "off":
		o.ShowIsError = false
	default:
		return fail("flag --show-is-error: %q is not on or off", a.showIsError)
	}
	switch {
	case a.systemPrompt != "":
		b, err := os.ReadFile(a.systemPrompt)
		if err != nil {
			return fail("flag --system-prompt: %s", err)
		}
		o.System = string(b)
	default:
		o.System = os.Getenv("AGENT_HARNESS_SYSTEM_PROMPT")
	}
	transcript := a.transcript
	if transcript == "" && os.Getenv("AGENT_HARNESS_RUN_DIR") != "" {
		transcript = filepath.Join(os.Getenv("AGENT_HARNESS_RUN_DIR"), "transcript.json")
	}
	if a.config == "" {
		return fail("flag --mcp-config is required (or set AGENT_HARNESS_MCP_CONFIG)")
	}
	data, err := os.ReadFile(a.config)
	if err != nil {
		return fail("flag --mcp-config: %s", err)
	}
	entry, err := refagent.ParseConfig(data, a.server)
	if err != nil {
		return fail("flag --mcp-config: %s: %s", a.config, err)
	}
	model, notes, err := newModel(spec, a, o.Params)
	if err != nil {
		return err
	}
	o.Model, o.Notes = model, notes

	ctx, stopSignals, caught := withStopSignals(ctx)
	defer stopSignals()
	cs, err := llmagent.Connect(ctx, entry, stderr)
	if err != nil {
		return exitError{code: exitFailure, msg: err.Error()}
	}
	o.Session = cs
	t, convErr := llmagent.Converse(ctx, o)
	_ = cs.Close() // the server's exit status is its business
	if sig := caught(); sig != nil {
		t.Notes = append(t.Notes, "interrupted by "+sig.String())
	}
	var werr error
	if transcript != "" {
		werr = llmagent.WriteJSON(transcript, t)
	}
	if f := os.Getenv("AGENT_HARNESS_CLAIM_FILE"); f != "" && t.Claim != nil {
		if err := llmagent.WriteJSON(f, t.Claim); werr == nil {
			werr = err
		}
	}
	if s, ok := caught().(syscall.Signal); ok {
		return exitCode(128 + int(s))
	}
	switch {
	case convErr != nil:
		return exitError{code: exitFailure, msg: convErr.Error()}
	case werr != nil:
		return exitError{code: exitFailure, msg: werr.Error()}
	}
	return nil
}

// newModel builds the model of spec: the key from the environment (exit 1
// when a needed one is missing), the server, and the notes on parameters
// the provider has none for.
func newModel(spec llmagent.Spec, a agentFlags, p llmagent.Params) (llmagent.Model, []string, error) {
	var notes []string
	if spec.Provider == "script" {
		m, err := llmagent.NewScript(spec.Model)
		return m, notes, err
	}
	base := a.baseURL
	if base == "" {
		base = spec.DefaultBaseURL()
	}
	keyEnv := a.keyEnv
	if keyEnv == "" {
		keyEnv = spec.DefaultKeyEnv()
	}
	key := ""
	if keyEnv != "" {
		key = os.Getenv(keyEnv)
	}
	if key == "" && keyEnv != "" && (a.keyEnv != "" || !llmagent.Loopback(base)) {
		return nil, nil, exitError{code: exitFailure, msg: fmt.Sprintf("no API key for %s: $%s is not set (a key is read from the environment only; name another variable with --api-key-env)", base, keyEnv)}
	}
	if spec.Provider == "anthropic" {
		if p.Seed != nil {
			notes = append(notes, "--seed not sent: the Messages API has no seed parameter")
		}
		if p.Temperature != nil {
			notes = append(notes, "--temperature not sent: the Messages API of the SDK in use (anthropic-sdk-go v2) has no temperature parameter")
		}
		if p.MaxTokens == nil {
			notes = append(notes, fmt.Sprintf("max_tokens %d sent: the Messages API requires it (--max-tokens not given)", llmagent.DefaultAnthropicMaxTokens))
		}
		return llmagent.NewMessages(base, key, spec.Model, nil), notes, nil
	}
	return llmagent.NewChatCompletions(base, key, spec.Model, nil), notes, nil
}
