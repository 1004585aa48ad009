package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// seenResult is one tool result as a fake provider received it: the text
// (with the Chat Completions "Error (isError=true): " prefix when the
// agent added it) and Anthropic's is_error flag.
type seenResult struct {
	text    string
	isError bool
}

// matrixFake is a fake LLM (Chat Completions at /v1/chat/completions,
// Messages at /v1/messages) that records the tool result each request
// ends with and decides from it, as the wire carried it:
//   - naive books, then books again whatever the result said;
//   - careful books; after a result marked as an error (the "Error
//     (isError=true): " prefix, or is_error) it reads when the text says
//     the request timed out, waits the announced N seconds when it says
//     "Retry after N seconds" and books again, and books again at once
//     otherwise; after an unmarked result it is done.
type matrixFake struct {
	*httptest.Server
	mu   sync.Mutex
	seen []seenResult
}

var retryAfterRe = regexp.MustCompile(`Retry after (\d+) seconds`)

func newMatrixFake(t *testing.T, policy string) *matrixFake {
	f := &matrixFake{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body map[string]any
		json.Unmarshal(b, &body)
		anthropic := r.URL.Path == "/v1/messages"
		last, isErr, calls, ok := lastToolResult(body, anthropic)
		f.mu.Lock()
		if ok {
			f.seen = append(f.seen, seenResult{last, isErr})
		}
		n := len(f.seen)
		f.mu.Unlock()
		marked := isErr || strings.HasPrefix(last, "Error (isError=true): ")
		booking := `{"guest":"Ada Lovelace","date":"2026-11-03","room":"double"}`
		tool, args := "", ""
		switch {
		case calls == 0:
			tool, args = "create_booking", booking
		case calls > 1:
		case policy == "naive":
			tool, args = "create_booking", booking
		case !marked:
		case strings.Contains(last, "timed out"):
			tool, args = "find_bookings", `{"guest":"Ada Lovelace","date":"2026-11-03"}`
		default:
			if m := retryAfterRe.FindStringSubmatch(last); m != nil {
				// The careful model waits as told (what is judged is the
				// proxy's clock between the 429 and the re-send).
				s, _ := strconv.Atoi(m[1])
				time.Sleep(time.Duration(s)*time.Second + 100*time.Millisecond)
			}
			tool, args = "create_booking", booking
		}
		w.Header().Set("Content-Type", "application/json")
		id := itoa(n)
		if anthropic {
			content := []any{map[string]any{"type": "text", "text": "Done."}}
			if tool != "" {
				content = []any{map[string]any{"type": "tool_use", "id": "toolu_" + id, "name": tool, "input": json.RawMessage(args)}}
			}
			json.NewEncoder(w).Encode(map[string]any{"id": "msg", "type": "message", "role": "assistant", "model": "m", "content": content,
				"stop_reason": "end_turn", "usage": map[string]any{"input_tokens": 5, "output_tokens": 2}})
			return
		}
		msg := map[string]any{"role": "assistant", "content": "Done."}
		if tool != "" {
			msg = map[string]any{"role": "assistant", "content": nil, "tool_calls": []any{map[string]any{"id": "call_" + id, "type": "function",
				"function": map[string]any{"name": tool, "arguments": args}}}}
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "cc", "object": "chat.completion", "created": 1, "model": "m",
			"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": "stop"}}, "usage": map[string]any{"prompt_tokens": 5, "completion_tokens": 2}})
	}))
	t.Cleanup(f.Close)
	return f
}

func (f *matrixFake) results() []seenResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]seenResult(nil), f.seen...)
}

// lastToolResult is the tool result the request's last message carries
// (ok false when it carries none), with Anthropic's is_error, and how many
// tool calls the assistant made so far.
func lastToolResult(body map[string]any, anthropic bool) (text string, isErr bool, calls int, ok bool) {
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		m, _ := m.(map[string]any)
		text, isErr, ok = "", false, false
		if !anthropic {
			tc, _ := m["tool_calls"].([]any)
			calls += len(tc)
			if m["role"] == "tool" {
				text, _ = m["content"].(string)
				ok = true
			}
			continue
		}
		blocks, _ := m["content"].([]any)
		for _, b := range blocks {
			b, _ := b.(map[string]any)
			switch b["type"] {
			case "tool_use":
				calls++
			case "tool_result":
				ok = true
				isErr, _ = b["is_error"].(bool)
				items, _ := b["content"].([]any)
				for _, c := range items {
					c, _ := c.(map[string]any)
					s, _ := c["text"].(string)
					text += s
				}
			}
		}
	}
	return
}

// llmCell is one cell of the matrix: a model and policy through the proxy
// in one scenario over one agent transport.
type llmCell struct {
	model, policy, scenario, transport string
	showIsError                        string // "" (default on) or "off"
}

// llmOutcome is what a cell observed.
type llmOutcome struct {
	seen       []seenResult // what the fake provider received (nil for script models)
	transcript []struct {
		Role, Content string
		IsError       bool
	}
	executions int // create_booking in the sample server's state file
	reported   int // create_booking executions in the report's operations
	verdict    string
	violations []string
}

// retryAfter is the F2 retry_after of a cell, in seconds: 1 where the
// model must wait it out (the fake careful model sleeps the announced
// time, so its re-send is late however slow the machine), 60 where the
// re-send must come too early (naive, and the scripts, which re-send at
// once): a re-send that took more than a second on a loaded machine would
// otherwise turn the expected RETRY_AFTER_VIOLATED into a PASS.
func (c llmCell) retryAfter() int {
	if c.policy == "careful" && !strings.HasPrefix(c.model, "script:") {
		return 1
	}
	return 60
}

// scenarioArgs are the proxy flags that select the cell's scenario.
func (c llmCell) scenarioArgs() []string {
	switch s := c.scenario; s {
	case "chaos":
		// Seed 7 at rate 0.2 draws a fault for call 1 only of calls 1–2
		// (fault.Chaos.draw), so the first write fails and the re-send runs.
		return []string{"--mode", "chaos", "--error-rate", "0.2", "--seed", "7"}
	case "F2":
		return []string{"--scenario", "F2", "--retry-after", strconv.Itoa(c.retryAfter())}
	}
	return []string{"--scenario", c.scenario}
}

// runLLMCell runs the built agent with the cell's model through the built
// proxy (stdio: the proxy is the mcp.json command; http: the proxy is
// started with --listen and mcp.json has its url) in front of the built
// sample server with a state file.
func runLLMCell(t *testing.T, bin string, c llmCell) llmOutcome {
	t.Helper()
	dir := t.TempDir()
	state, report := filepath.Join(dir, "state.jsonl"), filepath.Join(dir, "report.json")
	proxyArgs := append(c.scenarioArgs(), "--audit-tools", "off")
	upstream := []string{"--", bin, "sample-server", "--state-file", state}
	var server map[string]any
	var hp *httpProxy
	if c.transport == "http" {
		hp = startHTTPProxy(t, append(proxyArgs, upstream...)...)
		report = hp.report
		server = map[string]any{"type": "http", "url": hp.url}
	} else {
		server = map[string]any{"command": bin, "args": append(append([]string{"proxy", "--report-file", report}, proxyArgs...), upstream...)}
	}
	b, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"h": server}})
	mcp, transcript := filepath.Join(dir, "mcp.json"), filepath.Join(dir, "transcript.json")
	if err := os.WriteFile(mcp, b, 0o666); err != nil {
		t.Fatal(err)
	}
	args := []string{"agent", "--model", c.model, "--mcp-config", mcp, "--transcript", transcript}
	if c.showIsError != "" {
		args = append(args, "--show-is-error", c.showIsError)
	}
	var fake *matrixFake
	if !strings.HasPrefix(c.model, "script:") {
		fake = newMatrixFake(t, c.policy)
		args = append(args, "--base-url", fake.URL+map[bool]string{true: "/v1", false: ""}[strings.HasPrefix(c.model, "openai")])
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), "OPENAI_API_KEY=", "ANTHROPIC_API_KEY=")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("agent: %v\n%s\n%s", err, out, stderr.String())
	}
	if hp != nil {
		if code := hp.stop(syscall.SIGTERM); code != 0 && code != 1 && code != 143 {
			t.Errorf("proxy exit %d\n%s", code, hp.stderr)
		}
	}
	var o llmOutcome
	if fake != nil {
		o.seen = fake.results()
	}
	o.executions = creates(t, state)
	var rep struct {
		Verdict string
		Report  struct {
			Operations []struct {
				Tool       string
				Executions int
			}
			Violations []struct{ Type string }
		}
	}
	rb, err := os.ReadFile(report)
	if err != nil || json.Unmarshal(rb, &rep) != nil {
		t.Fatalf("report: %v\n%s", err, rb)
	}
	o.verdict = rep.Verdict
	for _, v := range rep.Report.Violations {
		o.violations = append(o.violations, v.Type)
	}
	for _, op := range rep.Report.Operations {
		if op.Tool == "create_booking" {
			o.reported += op.Executions
		}
	}
	var tr struct {
		Messages []struct {
			Role, Content string
			IsError       bool
		}
	}
	tb, err := os.ReadFile(transcript)
	if err != nil || json.Unmarshal(tb, &tr) != nil {
		t.Fatalf("transcript: %v\n%s", err, tb)
	}
	o.transcript = tr.Messages
	return o
}

// firstFaultText is the text of the result the proxy hands the agent for
// the scenario's first write ("" for F4, which passes the upstream's).
func (c llmCell) firstFaultText() string {
	switch c.scenario {
	case "F1":
		return fault.TimeoutText
	case "F2":
		return "Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after " + strconv.Itoa(c.retryAfter()) + " seconds."
	case "F3":
		return `{"`
	case "F5", "chaos":
		return "Error: HTTP 500 Internal Server Error."
	}
	return ""
}

// llmExpect is what a naive or careful model must produce in a scenario
// (behaviour §3.2, selftest.Expected): naive FAILs where an immediate
// re-send is a duplicate (F1, F4) or too early (F2).
func llmExpect(scenario, policy string) (executions int, verdict, violation string) {
	if policy == "careful" {
		return 1, "PASS", ""
	}
	switch scenario {
	case "F1", "F4":
		return 2, "FAIL", "DUPLICATE_EXECUTION"
	case "F2":
		return 1, "FAIL", "RETRY_AFTER_VIOLATED"
	}
	return 1, "PASS", ""
}

// TestLLMAgentMatrix: the built agent with --model openai:fake and
// anthropic:fake (fake providers speaking the real wire formats, deciding
// from what they receive) through the built proxy in front of the sample
// server, under F1–F5 and chaos, over the stdio and the HTTP agent
// transport, naive and careful. Each cell checks the first tool result the
// provider received (the fault's exact text, with the isError marker of
// each wire format; F4 the upstream's own unmarked answer), the report's
// verdict and violation, and the sample server's executions.
//
// By default a representative half of the 48 cells runs (llmDefaultCell:
// every model × scenario once over each transport, once with each policy);
// AGENT_HARNESS_LLM_MATRIX=full (.ci/run) runs all. The cells run in
// parallel: each has its own proxy, sample server, agent and fake provider.
func TestLLMAgentMatrix(t *testing.T) {
	t.Parallel()
	full := os.Getenv(llmMatrixEnv) == "full"
	start := time.Now()
	ran, all := 0, 0
	t.Cleanup(func() {
		t.Logf("%d of %d cells in %v (full: %v)", ran, all, time.Since(start).Round(time.Millisecond), full)
		if ran < all {
			noteSubset(fmt.Sprintf("TestLLMAgentMatrix ran %d of its %d cells (%s=full runs all)", ran, all, llmMatrixEnv))
		}
	})
	for mi, model := range []string{"openai:fake", "anthropic:fake"} {
		for ti, transport := range []string{"stdio", "http"} {
			for _, scenario := range []string{"F1", "F2", "F3", "F4", "F5", "chaos"} {
				for pi, policy := range []string{"naive", "careful"} {
					all++
					if !full && !llmDefaultCell(mi, ti, pi) {
						continue
					}
					ran++
					c := llmCell{model: model, policy: policy, scenario: scenario, transport: transport}
					t.Run(strings.Join([]string{model, transport, scenario, policy}, "/"), func(t *testing.T) {
						t.Parallel()
						o := runLLMCell(t, built(t, "agent-harness"), c)
						checkFirstResult(t, c, o.seen)
						checkSecondResult(t, c, o.seen)
						checkTranscriptIsWire(t, o)
						checkJudged(t, c, o)
					})
				}
			}
		}
	}
}

// llmMatrixEnv=full runs every cell of TestLLMAgentMatrix; by default the
// cells of llmDefaultCell run.
const llmMatrixEnv = "AGENT_HARNESS_LLM_MATRIX"

// llmDefaultCell reports whether the cell of model mi, transport ti and
// policy pi (indexes) is in the default half: for each model and scenario
// one cell per transport, the two with different policies, so every
// model × scenario runs over both transports and with both policies, and
// every model × transport with both policies.
func llmDefaultCell(mi, ti, pi int) bool {
	return (mi+ti+pi)%2 == 0
}

func checkFirstResult(t *testing.T, c llmCell, seen []seenResult) {
	t.Helper()
	if len(seen) == 0 {
		t.Fatal("the provider received no tool result")
	}
	anthropic := strings.HasPrefix(c.model, "anthropic")
	want, marked := c.firstFaultText(), c.scenario != "F4" && c.showIsError != "off"
	if want == "" {
		// F4: the upstream's answer, passed unchanged.
		if got := seen[0]; got.isError || strings.HasPrefix(got.text, "Error") || !strings.Contains(got.text, "B-0001") {
			t.Errorf("first tool result %q (is_error %v), want the sample server's booking B-0001, unmarked", got.text, got.isError)
		}
		return
	}
	if !anthropic && marked {
		want = "Error (isError=true): " + want
	}
	if got := seen[0]; got.text != want || got.isError != (anthropic && marked) {
		t.Errorf("first tool result %q (is_error %v), want %q (is_error %v)", got.text, got.isError, want, anthropic && marked)
	}
}

// checkSecondResult: the result of the model's second call is what the
// scenario leaves it (behaviour §3.2): the careful model's read after F1
// finds the ghost-written booking; every other second call is a re-sent
// booking that went through (F4's second write passes unchanged too).
func checkSecondResult(t *testing.T, c llmCell, seen []seenResult) {
	t.Helper()
	if c.policy == "careful" && c.scenario == "F4" {
		if len(seen) != 1 {
			t.Errorf("the careful model made %d tool calls after an unmarked answer, want none", len(seen)-1)
		}
		return
	}
	if len(seen) != 2 {
		t.Fatalf("the provider received %d tool results, want 2: %+v", len(seen), seen)
	}
	want := "B-0001"
	if c.scenario == "F1" && c.policy == "naive" || c.scenario == "F4" {
		want = "B-0002" // the duplicate: the first booking was executed
	}
	if got := seen[1]; got.isError || strings.HasPrefix(got.text, "Error") || !strings.Contains(got.text, want) {
		t.Errorf("second tool result %q (is_error %v), want an unmarked answer with %s", got.text, got.isError, want)
	}
}

// checkTranscriptIsWire: the transcript's tool messages are what the
// provider received (content and marker), in order.
func checkTranscriptIsWire(t *testing.T, o llmOutcome) {
	t.Helper()
	var tools []seenResult
	for _, m := range o.transcript {
		if m.Role == "tool" {
			tools = append(tools, seenResult{m.Content, m.IsError})
		}
	}
	if len(tools) != len(o.seen) {
		t.Fatalf("transcript has %d tool results, the provider received %d", len(tools), len(o.seen))
	}
	for i, got := range tools {
		if w := o.seen[i]; got.text != w.text || w.isError && !got.isError || got.isError && !w.isError && !strings.HasPrefix(w.text, "Error (isError=true): ") {
			t.Errorf("transcript tool result %d %q (isError %v), the provider received %q (is_error %v)", i, got.text, got.isError, w.text, w.isError)
		}
	}
}

func checkJudged(t *testing.T, c llmCell, o llmOutcome) {
	t.Helper()
	execs, verdict, violation := llmExpect(c.scenario, c.policy)
	if c.showIsError == "off" && c.policy == "careful" {
		// The careful model saw `{"` unmarked and took it for an answer.
		execs = 0
	}
	if c.model == "script:careful" && c.scenario == "F2" {
		// The script reads after any failure and re-sends at once when the
		// booking is missing (docs/agent.md): it does not wait for
		// retry_after, so it re-sends before the deadline.
		verdict, violation = "FAIL", "RETRY_AFTER_VIOLATED"
	}
	if o.executions != execs {
		t.Errorf("the sample server executed create_booking %d times, want %d", o.executions, execs)
	}
	if o.reported != o.executions {
		t.Errorf("the report counts %d create_booking executions, the sample server's state file %d", o.reported, o.executions)
	}
	if o.verdict != verdict {
		t.Errorf("verdict %s, want %s (violations %v)", o.verdict, verdict, o.violations)
	}
	if got := strings.Join(o.violations, ","); got != violation {
		t.Errorf("violations %q, want %q", got, violation)
	}
}

// TestLLMAgentShowIsErrorOffF3: with --show-is-error off both providers
// receive F3's truncated body `{"` alone, through the proxy over stdio and
// HTTP (no prefix, no
// is_error), so the careful model takes it for an answer and books nothing;
// the naive one re-sends and books once. Both PASS: F3 executed nothing.
func TestLLMAgentShowIsErrorOffF3(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, model := range []string{"openai:fake", "anthropic:fake"} {
		for _, transport := range []string{"stdio", "http"} {
			for _, policy := range []string{"naive", "careful"} {
				c := llmCell{model: model, policy: policy, scenario: "F3", transport: transport, showIsError: "off"}
				t.Run(strings.Join([]string{model, transport, policy}, "/"), func(t *testing.T) {
					t.Parallel()
					o := runLLMCell(t, bin, c)
					checkFirstResult(t, c, o.seen)
					checkTranscriptIsWire(t, o)
					checkJudged(t, c, o)
				})
			}
		}
	}
}

// TestLLMAgentScriptMatrix: the scripted models (no provider) through the
// proxy over both transports in F1, F2 and F5; the transcript's first tool
// result is what the script received. script:careful FAILs F2: it checks
// with a read, finds nothing and re-sends before retry_after.
func TestLLMAgentScriptMatrix(t *testing.T) {
	t.Parallel()
	bin := built(t, "agent-harness")
	for _, transport := range []string{"stdio", "http"} {
		for _, scenario := range []string{"F1", "F2", "F5"} {
			for _, policy := range []string{"naive", "careful"} {
				c := llmCell{model: "script:" + policy, policy: policy, scenario: scenario, transport: transport}
				t.Run(strings.Join([]string{transport, scenario, policy}, "/"), func(t *testing.T) {
					t.Parallel()
					o := runLLMCell(t, bin, c)
					var first string
					for _, m := range o.transcript {
						if m.Role == "tool" {
							first = m.Content
							break
						}
					}
					if want := "Error (isError=true): " + c.firstFaultText(); first != want {
						t.Errorf("first tool result %q, want %q", first, want)
					}
					checkJudged(t, c, o)
				})
			}
		}
	}
}
