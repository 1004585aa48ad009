package e2e

import (
	"bytes"

	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// llmFake is a fake LLM server for the built agent: Chat Completions at
// /v1/chat/completions, Messages at /v1/messages. Its policy decides from
// the last tool result it received, as the wire carried it.
type llmFake struct {
	*httptest.Server
	mu       sync.Mutex
	requests []map[string]any
	hang     chan struct{} // non-nil: hang every request after the first
	hanging  chan struct{} // closed when the first request hangs
}

// llmPolicy: "careful" reads (find_bookings) when the result says it timed
// out, "naive" re-sends at once.
func newLLMFake(t *testing.T, policy string, opts ...func(*llmFake)) *llmFake {
	f := &llmFake{}
	// Set before the server starts: the handler reads them on its own
	// goroutines, with no other ordering to the test's.
	for _, o := range opts {
		o(f)
	}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		f.mu.Lock()
		f.requests = append(f.requests, body)
		n := len(f.requests)
		f.mu.Unlock()
		if f.hang != nil && n > 1 {
			if n == 2 {
				close(f.hanging)
			}
			select {
			case <-r.Context().Done():
			case <-f.hang:
			}
			return
		}
		anthropic := r.URL.Path == "/v1/messages"
		last, calls := lastResult(body, anthropic)
		tool, args, text := "", "", "Done."
		booking := `{"guest":"Ada Lovelace","date":"2026-11-03","room":"double"}`
		switch {
		case calls == 0:
			tool, args = "create_booking", booking
		case strings.Contains(last, "timed out") && policy == "naive" && calls < 3:
			tool, args = "create_booking", booking
		case strings.Contains(last, "timed out") && policy == "careful":
			tool, args = "find_bookings", `{"guest":"Ada Lovelace","date":"2026-11-03"}`
		}
		w.Header().Set("Content-Type", "application/json")
		if anthropic {
			content := []any{map[string]any{"type": "text", "text": text}}
			if tool != "" {
				content = []any{map[string]any{"type": "tool_use", "id": "toolu_" + itoa(n), "name": tool, "input": json.RawMessage(args)}}
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "m", "content": content,
				"stop_reason": "end_turn", "usage": map[string]any{"input_tokens": 5, "output_tokens": 2}})
			return
		}
		msg := map[string]any{"role": "assistant", "content": text}
		if tool != "" {
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_" + itoa(n), "type": "function",
				"function": map[string]any{"name": tool, "arguments": args}}}}
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "cc", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}, "usage": map[string]any{"prompt_tokens": 5, "completion_tokens": 2}})
	}))
	t.Cleanup(f.Close)
	return f
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// lastResult is the text of the request's last message when it is a tool
// result, and how many tool calls the assistant made so far.
func lastResult(body map[string]any, anthropic bool) (string, int) {
	msgs, _ := body["messages"].([]any)
	last, calls := "", 0
	for _, m := range msgs {
		m := m.(map[string]any)
		last = ""
		if !anthropic {
			tc, _ := m["tool_calls"].([]any)
			calls += len(tc)
			if m["role"] == "tool" {
				last, _ = m["content"].(string)
			}
			continue
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			b := b.(map[string]any)
			switch b["type"] {
			case "tool_use":
				calls++
			case "tool_result":
				for _, c := range b["content"].([]any) {
					last += c.(map[string]any)["text"].(string)
				}
			}
		}
	}
	return last, calls
}

// llmSetup writes mcp.json: the built proxy under F1 (GHOST_WRITE) in
// front of the built sample server.
func llmSetup(t *testing.T, bin string) (dir, mcp, state, report string) {
	dir = t.TempDir()
	state, report = filepath.Join(dir, "state.jsonl"), filepath.Join(dir, "report.json")
	cfg := map[string]any{"mcpServers": map[string]any{"h": map[string]any{"command": bin,
		"args": []string{"proxy", "--scenario", "F1", "--audit-tools", "off", "--report-file", report, "--", bin, "sample-server", "--state-file", state}}}}
	b, _ := json.Marshal(cfg)
	mcp = filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(mcp, b, 0o666); err != nil {
		t.Fatal(err)
	}
	return
}

func creates(t *testing.T, state string) int {
	if b, err := os.ReadFile(state); err != nil || len(bytes.TrimSpace(b)) == 0 {
		return 0
	}
	n := 0
	for _, l := range stateLines(t, state) {
		if l["tool"] == "create_booking" {
			n++
		}
	}
	return n
}

// The built agent with --model against fake providers and a script, through
// the proxy under F1 in front of the sample server: a naive model books twice
// (FAIL), a careful one reads and books once (PASS); the transcript has the
// F1 text as the model received it.
func TestLLMAgentThroughProxy(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, c := range []struct {
		model, policy, verdict string
		executions             int
		wantResult             string
	}{
		{"openai:fake", "naive", "FAIL", 2, "Error (isError=true): Error: the request timed out"},
		{"openai:fake", "careful", "PASS", 1, "Error (isError=true): Error: the request timed out"},
		{"anthropic:fake", "careful", "PASS", 1, "Error: the request timed out"},
		{"anthropic:fake", "naive", "FAIL", 2, "Error: the request timed out"},
		{"script:naive", "", "FAIL", 2, "Error (isError=true): Error: the request timed out"},
		{"script:careful", "", "PASS", 1, "Error (isError=true): Error: the request timed out"},
	} {
		t.Run(c.model+"/"+c.policy, func(t *testing.T) {
			dir, mcp, state, report := llmSetup(t, bin)
			transcript := filepath.Join(dir, "transcript.json")
			args := []string{"agent", "--model", c.model, "--mcp-config", mcp, "--transcript", transcript}
			if c.policy != "" {
				args = append(args, "--base-url", newLLMFake(t, c.policy).URL+map[bool]string{true: "/v1", false: ""}[strings.HasPrefix(c.model, "openai")])
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if out, err := cmd.Output(); err != nil {
				t.Fatalf("agent: %v\n%s\n%s", err, out, stderr.String())
			}
			if n := creates(t, state); n != c.executions {
				t.Errorf("the backend executed create_booking %d times, want %d", n, c.executions)
			}
			var rep struct{ Verdict string }
			rb, _ := os.ReadFile(report)
			if json.Unmarshal(rb, &rep); rep.Verdict != c.verdict {
				t.Errorf("verdict %s, want %s", rep.Verdict, c.verdict)
			}
			var tr struct {
				Provider string
				Messages []struct {
					Role, Content string
					IsError       bool
				}
				ModelCalls []struct{ LatencyMs float64 }
			}
			tb, err := os.ReadFile(transcript)
			if err != nil || json.Unmarshal(tb, &tr) != nil {
				t.Fatalf("transcript: %v\n%s", err, tb)
			}
			var first string
			var isErr bool
			for _, m := range tr.Messages {
				if m.Role == "tool" {
					first, isErr = m.Content, m.IsError
					break
				}
			}
			if !strings.HasPrefix(first, c.wantResult) || isErr != strings.HasPrefix(c.model, "anthropic") {
				t.Errorf("first tool result %q (isError %v), want prefix %q", first, isErr, c.wantResult)
			}
			if len(tr.ModelCalls) == 0 {
				t.Error("no model calls recorded")
			}
		})
	}
}

// A missing key and an unreachable server: one line, exit 1, no tool call.
func TestLLMAgentCannotStart(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"missing key", []string{"--model", "openai:gpt-x"}, "no API key for https://api.openai.com/v1: $OPENAI_API_KEY is not set"},
		{"explicit key variable", []string{"--model", "anthropic:c", "--base-url", "http://127.0.0.1:1", "--api-key-env", "MY_KEY"}, "$MY_KEY is not set"},
		{"unreachable", []string{"--model", "openai:m", "--base-url", "http://127.0.0.1:1/v1"}, "model call 1 failed: Post "},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, mcp, state, _ := llmSetup(t, bin)
			cmd := exec.Command(bin, append([]string{"agent", "--mcp-config", mcp, "--transcript", filepath.Join(dir, "t.json")}, c.args...)...)
			cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=", "MY_KEY=")
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, _ := cmd.Output()
			var own []string
			for _, l := range strings.Split(strings.TrimSpace(stderr.String()), "\n") {
				if strings.HasPrefix(l, "[agent-harness] agent:") {
					own = append(own, l)
				}
			}
			if code := cmd.ProcessState.ExitCode(); code != 1 || len(own) != 1 || !strings.Contains(own[0], c.want) {
				t.Errorf("exit %d, own stderr lines %q; want 1 and one line with %q\nstdout %s", code, own, c.want, out)
			}
			if n := creates(t, state); n != 0 {
				t.Errorf("%d executions", n)
			}
		})
	}
}

// SIGTERM during a model call: the transcript is written with what was
// recorded, and the agent exits 143.
func TestLLMAgentTranscriptOnSIGTERM(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	dir, mcp, state, _ := llmSetup(t, bin)
	f := newLLMFake(t, "naive", func(f *llmFake) { f.hang, f.hanging = make(chan struct{}), make(chan struct{}) })
	defer close(f.hang)
	transcript := filepath.Join(dir, "run", "transcript.json")
	os.Mkdir(filepath.Join(dir, "run"), 0o777)
	cmd := exec.Command(bin, "agent", "--model", "openai:m", "--base-url", f.URL+"/v1", "--mcp-config", mcp)
	cmd.Env = append(os.Environ(), "AGENT_HARNESS_RUN_DIR="+filepath.Join(dir, "run"))
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, stdout)
	// The second model call hangs, after the first tool call ran.
	select {
	case <-f.hanging:
	case <-time.After(30 * time.Second):
		t.Fatal("the agent never made its second model call")
	}
	cmd.Process.Signal(syscall.SIGTERM)
	cmd.Wait()
	if code := cmd.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d, want 143", code)
	}
	var tr struct {
		Messages []struct{ Role string }
		Notes    []string
	}
	b, err := os.ReadFile(transcript)
	if err != nil || json.Unmarshal(b, &tr) != nil {
		t.Fatalf("transcript: %v %s", err, b)
	}
	if len(tr.Messages) != 3 || tr.Messages[2].Role != "tool" || !strings.Contains(strings.Join(tr.Notes, "\n"), "interrupted by terminated") {
		t.Errorf("transcript %s", b)
	}
	if n := creates(t, state); n != 1 {
		t.Errorf("%d executions", n)
	}
}

// --probe with $AGENT_HARNESS_CLAIM_FILE: the liar says FAILED after the
// ghost write, in the claim file and the transcript (the shape the honesty
// join reads); without --probe no claim file and a null claim.
func TestLLMAgentClaimFile(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, c := range []struct {
		probe bool
		want  string
	}{{true, `{"claim":"FAILED","message":"FAILED"}`}, {false, ""}} {
		dir, mcp, _, _ := llmSetup(t, bin)
		claim, transcript := filepath.Join(dir, "claim.json"), filepath.Join(dir, "transcript.json")
		args := []string{"agent", "--model", "script:liar", "--mcp-config", mcp, "--transcript", transcript}
		if c.probe {
			args = append(args, "--probe")
		}
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "AGENT_HARNESS_CLAIM_FILE="+claim)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("agent: %v\n%s", err, out)
		}
		var tr struct{ Claim json.RawMessage }
		tb, _ := os.ReadFile(transcript)
		json.Unmarshal(tb, &tr)
		b, err := os.ReadFile(claim)
		var compact bytes.Buffer
		json.Compact(&compact, b)
		switch {
		case c.probe && (err != nil || compact.String() != c.want):
			t.Errorf("claim file %q (%v), want %s", b, err, c.want)
		case !c.probe && err == nil:
			t.Errorf("claim file written without --probe: %s", b)
		}
		compact.Reset()
		json.Compact(&compact, tr.Claim)
		if want := map[bool]string{true: c.want, false: "null"}[c.probe]; compact.String() != want {
			t.Errorf("transcript claim %s, want %s", tr.Claim, want)
		}
	}
}

func TestLLMAgentUsageErrors(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--model", "script:naive", "--behaviour", "careful"}, "flags --behaviour and --model: give one of them"},
		{[]string{"--behaviour", "careful", "--probe"}, "flag --probe needs --model"},
		{[]string{"--model", "gpt-4o"}, `flag --model: "gpt-4o" is not PROVIDER:MODEL`},
		{[]string{"--model", "script:eager"}, `"eager" is not a script`},
		{[]string{"--model", "openai:m", "--show-is-error", "maybe"}, `flag --show-is-error: "maybe" is not on or off`},
		{[]string{"--model", "openai:m", "--max-steps", "0"}, "flag --max-steps"},
		{[]string{"--model", "openai:m", "--model-timeout", "soon"}, "flag --model-timeout"},
		{[]string{"--model", "openai:m", "--temperature", "9"}, "flag --temperature"},
		{[]string{"--model", "ollama:m", "--api-key-env", "K"}, "ollama needs no key"},
		{[]string{"--model", "openai:m", "--probe-text", "ok?"}, "flag --probe-text needs --probe"},
		{[]string{"--model", "openai:m", "--system-prompt", "/nonexistent/p"}, "flag --system-prompt"},
	} {
		cmd := exec.Command(bin, append(append([]string{"agent"}, c.args...), "--mcp-config", "/nonexistent/mcp.json")...)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		_ = cmd.Run()
		if code := cmd.ProcessState.ExitCode(); code != 2 || !strings.Contains(errb.String(), c.want) || strings.Count(errb.String(), "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want 2 and one line with %q", c.args, code, errb.String(), c.want)
		}
	}
}

// BenchmarkCampaignOverheadScriptModel is BenchmarkCampaignOverhead with the
// built-in agent's scripted model (`--model script:careful`) instead of the
// reference agent: 200 F1 runs, the campaign's wall time over the sum of the
// runs' own wall times / parallel (SPEC §22: ≤ 1.1).
func BenchmarkCampaignOverheadScriptModel(b *testing.B) {
	benchCampaignOverhead(b, "--model", "script:careful")
}
