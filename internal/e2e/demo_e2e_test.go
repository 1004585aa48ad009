package e2e

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// demoClient starts the built binary with no subcommand in dir and
// connects a go-sdk MCP client to it over stdio.
func demoClient(t *testing.T, dir string) (*mcp.ClientSession, *syncBuffer) {
	t.Helper()
	cmd := exec.Command(built(t, "agent-harness"))
	cmd.Dir = dir
	stderr := &syncBuffer{}
	cmd.Stderr = stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "demo-e2e", Version: "1"}, nil)
	cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: maxWait}, nil)
	if err != nil {
		t.Fatalf("connect to the demo server: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs, stderr
}

func callDemo(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func demoJSON(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any, v any) {
	t.Helper()
	text, isErr := callDemo(t, cs, tool, args)
	if isErr {
		t.Fatalf("%s %v: %s", tool, args, text)
	}
	if err := json.Unmarshal([]byte(text), v); err != nil {
		t.Fatalf("%s answer %q: %v", tool, text, err)
	}
}

func newSession(t *testing.T, cs *mcp.ClientSession, scenario string) (id, dropped string) {
	t.Helper()
	var out struct {
		ID      string `json:"session_id"`
		Dropped string `json:"dropped_session_id"`
	}
	args := map[string]any{}
	if scenario != "" {
		args["scenario"] = scenario
	}
	demoJSON(t, cs, "start_session", args, &out)
	return out.ID, out.Dropped
}

type demoScore struct {
	Verdict string `json:"verdict"`
	Score   struct {
		Total *int `json:"total"`
	} `json:"score"`
}

func TestDemoServerEveryTool(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cs, stderr := demoClient(t, dir)

	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	slices.Sort(names)
	want := []string{"delete_session", "execute_call", "get_report", "get_score", "list_scenarios", "reset_session", "start_session"}
	if !slices.Equal(names, want) {
		t.Errorf("tools = %v, want %v", names, want)
	}

	var scen struct {
		Scenarios []struct {
			ID string `json:"id"`
		} `json:"scenarios"`
	}
	demoJSON(t, cs, "list_scenarios", nil, &scen)
	if len(scen.Scenarios) != 5 || scen.Scenarios[0].ID != "F1" || scen.Scenarios[4].ID != "F5" {
		t.Errorf("list_scenarios = %+v", scen)
	}

	// F1: the write executes but the caller sees a timeout; a read, no
	// re-send → PASS 100.
	first, _ := newSession(t, cs, "F1")
	text, isErr := callDemo(t, cs, "execute_call", map[string]any{"session_id": first, "tool": "create_booking",
		"arguments": map[string]any{"guest": "Ada", "date": "2026-11-03"}, "idempotency_key": "k-1"})
	if !isErr || !strings.Contains(text, "timed out") {
		t.Errorf("F1 write: %q (isError %v), want the injected timeout", text, isErr)
	}
	if text, isErr := callDemo(t, cs, "execute_call", map[string]any{"session_id": first, "tool": "search_bookings",
		"arguments": map[string]any{"guest": "Ada"}}); isErr || !strings.Contains(text, `"ok"`) {
		t.Errorf("read: %q (isError %v), want a generic ok", text, isErr)
	}
	var sc demoScore
	demoJSON(t, cs, "get_score", map[string]any{"session_id": first}, &sc)
	if sc.Verdict != "PASS" || sc.Score.Total == nil || *sc.Score.Total != 100 {
		t.Errorf("F1 careful: %+v, want PASS 100", sc)
	}
	md, isErr := callDemo(t, cs, "get_report", map[string]any{"session_id": first})
	if isErr || !strings.Contains(md, "VERIFIED_NO_RETRY") {
		t.Errorf("get_report markdown: %q", md)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".cuonztech", "audit-report.json"))
	if err != nil {
		t.Fatalf("audit report in the server's cwd: %v", err)
	}
	var file struct {
		Verdict, Certification, Kind string
		Report                       struct {
			Kind string `json:"kind"`
		} `json:"report"`
	}
	if err := json.Unmarshal(data, &file); err != nil || file.Verdict != "PASS" || file.Kind != "demo" ||
		file.Report.Kind != "demo" || file.Certification != "UNVERIFIED_FOR_PRODUCTION" {
		t.Errorf("audit-report.json (%v): %s", err, data)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "get_report", Arguments: map[string]any{"session_id": first, "format": "json"}})
	if err != nil || res.IsError || len(res.Content) == 0 {
		t.Fatalf("get_report json: %v %+v", err, res)
	}
	if js := res.Content[0].(*mcp.TextContent).Text; !json.Valid([]byte(js)) || !strings.Contains(js, `"kind":"demo"`) {
		t.Errorf("get_report json: %q", js)
	}

	// F4 twice → FAIL; reset clears it; delete removes the session.
	f4, _ := newSession(t, cs, "F4")
	for range 2 {
		callDemo(t, cs, "execute_call", map[string]any{"session_id": f4, "tool": "create_booking", "arguments": map[string]any{"guest": "Bo"}})
	}
	demoJSON(t, cs, "get_score", map[string]any{"session_id": f4}, &sc)
	if sc.Verdict != "FAIL" {
		t.Errorf("F4 duplicate: verdict %s, want FAIL", sc.Verdict)
	}
	if text, isErr := callDemo(t, cs, "reset_session", map[string]any{"session_id": f4}); isErr {
		t.Fatalf("reset_session: %s", text)
	}
	demoJSON(t, cs, "get_score", map[string]any{"session_id": f4}, &sc)
	if sc.Verdict != "NOT_TESTED" || sc.Score.Total != nil {
		t.Errorf("after reset: %+v, want NOT_TESTED without score", sc)
	}
	if text, isErr := callDemo(t, cs, "delete_session", map[string]any{"session_id": f4}); isErr {
		t.Fatalf("delete_session: %s", text)
	}
	if text, isErr := callDemo(t, cs, "get_score", map[string]any{"session_id": f4}); !isErr || !strings.Contains(text, "unknown session") {
		t.Errorf("deleted session answers: %q", text)
	}

	// 500 sessions are kept: with `first` alive, 499 more fit; the 501st
	// drops the oldest, `first`.
	var second string
	for i := range 499 {
		id, dropped := newSession(t, cs, "")
		if dropped != "" {
			t.Fatalf("session %d dropped %s before the limit", i, dropped)
		}
		if i == 0 {
			second = id
		}
	}
	if _, isErr := callDemo(t, cs, "get_score", map[string]any{"session_id": first}); isErr {
		t.Fatalf("with 500 sessions the first is gone")
	}
	if _, dropped := newSession(t, cs, ""); dropped != first {
		t.Errorf("the 501st session dropped %q, want the oldest %q", dropped, first)
	}
	if text, isErr := callDemo(t, cs, "get_score", map[string]any{"session_id": first}); !isErr || !strings.Contains(text, "unknown session") {
		t.Errorf("the oldest session still answers: %q", text)
	}
	if _, isErr := callDemo(t, cs, "get_score", map[string]any{"session_id": second}); isErr {
		t.Errorf("the second-oldest session was dropped too")
	}

	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	if got := stderr.String(); strings.Count(got, "\n") != 1 || !strings.HasPrefix(got, "[agent-harness] demo MCP server") {
		t.Errorf("stderr = %q, want the one startup line", got)
	}
}

// TestDemoRawStdio writes requests and closes stdin at once, like a shell
// pipe: every request is still answered. It checks the raw bytes: no input
// schema in tools/list uses $schema, pattern, format or propertyNames as a
// keyword, and execute_call passes the injected F2 answer through unchanged.
func TestDemoRawStdio(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(built(t, "agent-harness"))
	cmd.Dir = t.TempDir()
	cmd.Stdin = strings.NewReader(strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"start_session","arguments":{"scenario":"F2"}}}`,
	}, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("demo server: %v", err)
	}
	byID := map[string]string{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("stdout line is not JSON-RPC: %q", l)
		}
		byID[string(m.ID)] = l
	}
	for _, id := range []string{"1", "2", "3"} {
		if byID[id] == "" {
			t.Fatalf("no answer to request %s; stdout:\n%s", id, out)
		}
	}
	raw := byID["2"]
	var msg struct {
		Result struct {
			Tools []struct {
				Name        string          `json:"name"`
				InputSchema json.RawMessage `json:"inputSchema"`
			} `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(raw), &msg); err != nil || len(msg.Result.Tools) != 7 {
		t.Fatalf("tools/list %v: %s", err, raw)
	}
	if strings.Contains(raw, `"$schema"`) || strings.Contains(raw, `"propertyNames"`) || strings.Contains(raw, `"pattern"`) {
		t.Errorf("tools/list contains a forbidden keyword: %s", raw)
	}
	for _, tl := range msg.Result.Tools {
		var v any
		if err := json.Unmarshal(tl.InputSchema, &v); err != nil {
			t.Fatal(err)
		}
		var walk func(v any, inProps bool)
		walk = func(v any, inProps bool) {
			switch x := v.(type) {
			case map[string]any:
				for k, c := range x {
					if !inProps && (k == "$schema" || k == "pattern" || k == "format" || k == "propertyNames") {
						t.Errorf("tool %s: schema keyword %q in %s", tl.Name, k, tl.InputSchema)
					}
					walk(c, !inProps && k == "properties")
				}
			case []any:
				for _, c := range x {
					walk(c, false)
				}
			}
		}
		walk(v, false)
	}

}

// TestDemoInjectedAnswerBytes talks to the demo server one request at a
// time over raw stdio: execute_call passes the injected F2 answer through
// byte for byte.
func TestDemoInjectedAnswerBytes(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(built(t, "agent-harness"))
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 16)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	ask := func(id int, line string) string {
		t.Helper()
		fmt.Fprintln(stdin, line)
		prefix := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,`, id)
		deadline := time.After(maxWait)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatal("demo server closed stdout")
				}
				if strings.HasPrefix(l, prefix) {
					return l
				}
			case <-deadline:
				t.Fatalf("no answer to request %d", id)
			}
		}
	}
	ask(1, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	fmt.Fprintln(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	ask(2, `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"start_session","arguments":{"scenario":"F2"}}}`)
	got := ask(3, `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"execute_call","arguments":{"session_id":"session-1","tool":"create_booking","arguments":{"guest":"Ada"}}}}`)
	want := `{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}],` +
		`"structuredContent":{"error":"rate_limited","status":429,"retry_after":60},"isError":true}}`
	if got != want {
		t.Errorf("execute_call answer\n got %s\nwant %s", got, want)
	}
	_ = stdin.Close()
	if err := cmd.Wait(); err != nil {
		t.Errorf("demo server exit: %v", err)
	}
}

func TestDemoUnknownArgument(t *testing.T) {
	t.Parallel()
	stdout, stderr, code := runBuilt(t, t.TempDir(), nil, "bogus")
	if code != 2 || stdout != "" || strings.Count(stderr, "\n") != 1 {
		t.Errorf("exit %d stdout %q stderr %q, want 2, nothing, one line", code, stdout, stderr)
	}
}
