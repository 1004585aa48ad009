package e2e

// The interoperability matrix of behaviour §3.3: every scenario through the
// built proxy in front of @modelcontextprotocol/server-memory (whose tools
// all declare an outputSchema), driven by real MCP clients — the
// TypeScript SDK Client, the MCP Inspector CLI and the go-sdk client. Each
// cell asserts what the client hands to its caller (a tool result carrying
// the fault's message, never an exception) and the report file's verdict.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// matrixScenario is one row of the matrix.
type matrixScenario struct {
	name  string
	flags []string // the proxy's scenario flags
	// text is what the client's first result must contain; isError its
	// isError.
	text    string
	isError bool
	// retryAfter is the _meta retry_after the first result must carry
	// (F2); zero: none.
	retryAfter int
	plugin     bool
}

// matrixPartialText is the fault pack's partial_success text.
const matrixPartialText = "Error: HTTP 500 Internal Server Error: the operation failed partway; some changes may have been applied."

var matrixScenarios = []matrixScenario{
	{name: "F1", flags: []string{"--scenario", "F1"}, text: fault.TimeoutText, isError: true},
	{name: "F2", flags: []string{"--scenario", "F2"}, text: "Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds.", isError: true, retryAfter: 60},
	{name: "F3", flags: []string{"--scenario", "F3"}, text: fault.TruncatedText, isError: true},
	// F4 and slow_write inject nothing: the client gets the server's own
	// result, which names the created entity.
	{name: "F4", flags: []string{"--scenario", "F4"}, text: `"entityType": "booking"`},
	{name: "F5", flags: []string{"--scenario", "F5"}, text: fault.ServerErrorText, isError: true},
	{name: "chaos", flags: []string{"--mode", "chaos", "--error-rate", "1", "--seed", "7"}, text: fault.ServerErrorText, isError: true},
	{name: "slow_write", flags: []string{"--scenario", "slow_write", "--plugin-config", `faultpack={"slow_write":{"delay_ms":200}}`},
		text: `"entityType": "booking"`, plugin: true},
	{name: "partial_success", flags: []string{"--scenario", "partial_success"}, text: matrixPartialText, isError: true, plugin: true},
}

// matrixClient runs one client against the proxy command line and returns
// the tool results it handed to its caller (as JSON), or the exception it
// raised instead.
type matrixClient struct {
	name string
	// run calls create_entities calls times (after listing the tools).
	run func(t *testing.T, proxy []string, env []string, args string, calls int) (results []json.RawMessage, exception string)
}

// matrixCell is what one client does in one scenario, and the verdict.
type matrixCell struct {
	calls      int
	verdict    string
	violations []string
}

// interopMatrixEnv=full runs every cell of TestInteropMatrix; by default
// the cells of interopDefaultCell run.
const interopMatrixEnv = "AGENT_HARNESS_INTEROP_MATRIX"

// interopDefaultCell reports whether the one-call cell of scenario si
// (index in matrixScenarios) and client is in the default subset: every
// scenario through the go-sdk client (in-process, cheap) and through one of
// the two node clients, the TypeScript SDK for even and the Inspector CLI
// for odd indexes, so each node client sees four scenarios, faults and
// plugin ones both. The two-call cells (the FAIL proofs) always run.
func interopDefaultCell(si int, client string) bool {
	switch client {
	case "ts-sdk":
		return si%2 == 0
	case "inspector-cli":
		return si%2 == 1
	}
	return true
}

func TestInteropMatrix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs node clients and servers")
	}
	memory := npmServer(t, "server-memory")
	clients := []matrixClient{tsClient(t), inspectorClient(t), goSDKClient()}
	full := os.Getenv(interopMatrixEnv) == "full"
	ran, total := 0, 0
	defer func() {
		if ran < total {
			noteSubset(fmt.Sprintf("TestInteropMatrix ran %d of its %d cells (%s=full runs all)", ran, total, interopMatrixEnv))
		}
	}()
	for si, sc := range matrixScenarios {
		for _, cl := range clients {
			all := []matrixCell{{calls: 1, verdict: "PASS"}}
			// The agent that really got the fault and re-sends at once
			// is caught (the TypeScript client only: one proof suffices).
			if cl.name == "ts-sdk" && sc.name == "F1" {
				all = append(all, matrixCell{calls: 2, verdict: "FAIL", violations: []string{"DUPLICATE_EXECUTION"}})
			}
			if cl.name == "ts-sdk" && sc.name == "F2" {
				all = append(all, matrixCell{calls: 2, verdict: "FAIL", violations: []string{"RETRY_AFTER_VIOLATED"}})
			}
			total += len(all)
			if !full && !interopDefaultCell(si, cl.name) {
				all = all[1:]
			}
			for _, cell := range all {
				ran++
				name := fmt.Sprintf("%s/%s/calls=%d", sc.name, cl.name, cell.calls)
				t.Run(name, func(t *testing.T) {
					t.Parallel()
					runMatrixCell(t, memory, sc, cl, cell)
				})
			}
		}
	}
}

func runMatrixCell(t *testing.T, memory []string, sc matrixScenario, cl matrixClient, cell matrixCell) {
	if cl.run == nil {
		skipInterop(t, missingNPM)
	}
	dir := t.TempDir()
	report := filepath.Join(dir, "report.json")
	proxy := []string{built(t, "agent-harness"), "proxy", "--audit-tools=off", "--report-file=" + report,
		"--upstream-command=" + memory[0], "--upstream-arg=" + memory[1]}
	for i := 0; i < len(sc.flags); i += 2 {
		proxy = append(proxy, sc.flags[i]+"="+sc.flags[i+1])
	}
	if sc.plugin {
		plugin := proxyPluginFlags(t, "./plugins/faultpack")
		for i := 0; i < len(plugin); i += 2 {
			proxy = append(proxy, plugin[i]+"="+plugin[i+1])
		}
	}
	env := []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, "memory.jsonl")}
	args := `{"entities":[{"name":"booking-1","entityType":"booking","observations":["room 12"]}]}`

	results, exception := cl.run(t, proxy, env, args, cell.calls)
	if exception != "" {
		t.Fatalf("the client raised instead of returning a tool result: %s", exception)
	}
	if len(results) != cell.calls {
		t.Fatalf("the client returned %d results, want %d", len(results), cell.calls)
	}
	checkMatrixResult(t, results[0], sc)

	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct {
		Status string `json:"status"`
		Report struct {
			Verdict       string                  `json:"verdict"`
			VerdictReason string                  `json:"verdictReason"`
			Violations    []struct{ Type string } `json:"violations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("report file: %v\n%s", err, b)
	}
	var violations []string
	for _, v := range r.Report.Violations {
		violations = append(violations, v.Type)
	}
	if r.Status != "finished" || r.Report.Verdict != cell.verdict || !slices.Equal(violations, cell.violations) {
		t.Errorf("report: status %s verdict %s violations %v, want finished %s %v\nreason: %s",
			r.Status, r.Report.Verdict, violations, cell.verdict, cell.violations, r.Report.VerdictReason)
	}
}

// checkMatrixResult checks the first result the client returned.
func checkMatrixResult(t *testing.T, raw json.RawMessage, sc matrixScenario) {
	t.Helper()
	var res struct {
		Content []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		StructuredContent json.RawMessage            `json:"structuredContent"`
		IsError           bool                       `json:"isError"`
		Meta              map[string]json.RawMessage `json:"_meta"`
	}
	if err := json.Unmarshal(raw, &res); err != nil {
		t.Fatalf("result %s: %v", raw, err)
	}
	if len(res.Content) == 0 || res.Content[0].Type != "text" || !strings.Contains(res.Content[0].Text, sc.text) || res.IsError != sc.isError {
		t.Errorf("result %s\nwant isError %v and a text containing %q", raw, sc.isError, sc.text)
	}
	if sc.isError && len(res.StructuredContent) > 0 && string(res.StructuredContent) != "null" {
		t.Errorf("injected result for a tool with an outputSchema carries structuredContent: %s", raw)
	}
	// The documented key (docs/proxy.md), spelled out.
	if sc.retryAfter != 0 && string(res.Meta["agent-harness/retryAfter"]) != fmt.Sprint(sc.retryAfter) {
		t.Errorf("result %s\nwant _meta {\"agent-harness/retryAfter\":%d}", raw, sc.retryAfter)
	}
}

// tsClient is testdata/npm/tsclient.mjs: the TypeScript SDK Client, which
// lists the tools first and so validates results against their
// outputSchemas.
func tsClient(t *testing.T) matrixClient {
	c := matrixClient{name: "ts-sdk"}
	script := npmFile(t, "tsclient.mjs")
	if script == "" || npmFile(t, "node_modules", "@modelcontextprotocol", "sdk", "package.json") == "" {
		return c
	}
	c.run = func(t *testing.T, proxy, env []string, args string, calls int) ([]json.RawMessage, string) {
		cfg, _ := json.Marshal(map[string]any{"command": proxy[0], "args": proxy[1:], "tool": "create_entities",
			"arguments": json.RawMessage(args), "calls": calls})
		out, stderr, code := runNode(t, filepath.Dir(script), env, script, string(cfg))
		if code != 0 {
			t.Fatalf("tsclient.mjs exit %d; stderr:\n%s", code, stderr)
		}
		var got struct {
			Results []json.RawMessage `json:"results"`
			Error   *string           `json:"error"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatalf("tsclient.mjs printed %q: %v", out, err)
		}
		if got.Error != nil {
			return nil, *got.Error
		}
		return got.Results, ""
	}
	return c
}

// inspectorClient is the MCP Inspector's CLI mode (`mcp-inspector --cli
// … --method tools/call`), run offline from node_modules: it lists the
// tools, then calls one with the TypeScript SDK Client, and prints the
// result as JSON (or the error on stderr, exit 1).
func inspectorClient(t *testing.T) matrixClient {
	c := matrixClient{name: "inspector-cli"}
	cli := npmFile(t, "node_modules", "@modelcontextprotocol", "inspector-cli", "build", "cli.js")
	if cli == "" {
		return c
	}
	c.run = func(t *testing.T, proxy, env []string, args string, calls int) ([]json.RawMessage, string) {
		var a map[string]json.RawMessage
		if err := json.Unmarshal([]byte(args), &a); err != nil {
			t.Fatal(err)
		}
		entities := a["entities"]
		argv := append([]string{cli, "--cli"}, proxy...)
		argv = append(argv, "--method", "tools/call", "--tool-name", "create_entities", "--tool-arg", "entities="+string(entities))
		var results []json.RawMessage
		for range calls {
			// The CLI reads its own package.json relative to the working
			// directory: run it from its build directory.
			out, stderr, code := runNode(t, filepath.Dir(cli), env, argv...)
			if code != 0 {
				// The CLI prints the exception on stderr and exits 1.
				return nil, fmt.Sprintf("exit %d: %s", code, bytes.TrimSpace(stderr))
			}
			if !json.Valid(out) {
				t.Fatalf("inspector printed %q", out)
			}
			results = append(results, json.RawMessage(out))
		}
		return results, ""
	}
	return c
}

// goSDKClient is the go-sdk client with a CommandTransport running the
// proxy.
func goSDKClient() matrixClient {
	return matrixClient{name: "go-sdk", run: func(t *testing.T, proxy, env []string, args string, calls int) ([]json.RawMessage, string) {
		ctx, cancel := context.WithTimeout(context.Background(), maxWait)
		defer cancel()
		cmd := exec.Command(proxy[0], proxy[1:]...)
		cmd.Env = append(os.Environ(), env...)
		client := mcp.NewClient(&mcp.Implementation{Name: "agent-harness-interop-go", Version: "0.0.1"}, nil)
		// Close waits for the proxy to exit after stdin EOF (it stops the
		// node upstream first); the SDK's default of 5 s is too short on
		// a loaded machine, and is no part of what the cell checks.
		session, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: maxWait}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		var results []json.RawMessage
		exception := ""
		if _, err := session.ListTools(ctx, nil); err != nil {
			exception = "tools/list: " + err.Error()
		}
		for i := 0; i < calls && exception == ""; i++ {
			res, err := session.CallTool(ctx, &mcp.CallToolParams{Name: "create_entities", Arguments: json.RawMessage(args)})
			if err != nil {
				exception = err.Error()
				break
			}
			b, err := json.Marshal(res)
			if err != nil {
				t.Fatal(err)
			}
			results = append(results, b)
		}
		if err := session.Close(); err != nil {
			t.Errorf("closing the session: %v", err)
		}
		return results, exception
	}}
}

// TestF2BytesPerProtocolVersion: the exact F2 answer on the wire for a
// tool without an outputSchema (create_booking of the test upstream, which
// answers initialize with the client's version): structuredContent from
// 2025-06-18 on, _meta before (behaviour §3.3, docs/proxy.md).
func TestF2BytesPerProtocolVersion(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	const text = `"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}]`
	for _, tt := range []struct{ version, want string }{
		{"2025-03-26", `{"jsonrpc":"2.0","id":2,"result":{` + text + `,"isError":true,"_meta":{"agent-harness/retryAfter":60}}}`},
		{"2025-06-18", `{"jsonrpc":"2.0","id":2,"result":{` + text + `,"structuredContent":{"error":"rate_limited","status":429,"retry_after":60},"isError":true}}`},
	} {
		t.Run(tt.version, func(t *testing.T) {
			t.Parallel()
			p := startProxy(t, nil, append(upstreamFlags(t), "--scenario", "F2", "--audit-tools", "off")...)
			p.request(`1`, "initialize", `{"protocolVersion":"`+tt.version+`","capabilities":{},"clientInfo":{"name":"e2e-agent","version":"0.0.1"}}`)
			p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
			got := p.request(`2`, "tools/call", `{"name":"create_booking","arguments":{"guest":"Ada"}}`)
			if string(got) != tt.want {
				t.Errorf("answer\n got %s\nwant %s", got, tt.want)
			}
			if code, _ := p.closeAndWait(); code != 0 {
				t.Errorf("exit %d; stderr:\n%s", code, p.stderr.String())
			}
		})
	}
}
