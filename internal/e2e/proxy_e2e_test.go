package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// transparencyScript drives one MCP session and returns every message the
// agent received, in order.
func transparencyScript(t *testing.T, p *peer) []captured {
	t.Helper()
	var out []captured
	add := func(label string, m []byte) { out = append(out, captured{label, m}) }

	add("initialize", p.initialize())

	cursor := ""
	for page := 0; ; page++ {
		params := `{}`
		if cursor != "" {
			params = `{"cursor":` + strconv.Quote(cursor) + `}`
		}
		resp := p.request(strconv.Itoa(100+page), "tools/list", params)
		add(fmt.Sprintf("tools/list page %d", page), resp)
		var r struct {
			Result struct {
				NextCursor string `json:"nextCursor"`
			} `json:"result"`
		}
		if err := json.Unmarshal(resp, &r); err != nil {
			t.Fatalf("tools/list: %v", err)
		}
		if cursor = r.Result.NextCursor; cursor == "" || page > 20 {
			break
		}
	}

	for i, m := range []struct{ method, params string }{
		{"resources/list", `{}`},
		{"resources/templates/list", `{}`},
		{"resources/read", `{"uri":"test://bookings/1"}`},
		{"prompts/list", `{}`},
		{"prompts/get", `{"name":"retry_policy","arguments":{"tool":"x"}}`},
		{"completion/complete", `{"ref":{"type":"ref/prompt","name":"retry_policy"},"argument":{"name":"tool","value":"cr"}}`},
		{"logging/setLevel", `{"level":"debug"}`},
		{"ping", ``},
		{"no/such_method", `{}`},
	} {
		add(m.method, p.request(`"s-`+strconv.Itoa(i)+`"`, m.method, m.params))
	}

	calls := []struct{ label, params string }{
		{"echo with _meta and odd numbers", `{"name":"echo","arguments":{"n":9007199254740993,"f":1.50,"e":1e2,"s":"é\u00e9\ud83d\ude00","nested":{"b":[1,{"c":null}]}},"_meta":{"progressToken":"pt-echo","x":1}}`},
		{"big_number", `{"name":"big_number","arguments":{}}`},
		{"isError", `{"name":"create_booking","arguments":{"room":"a","fail":true}}`},
		{"write", `{"name":"create_booking","arguments":{"room":"a","idempotency_key":"k1"}}`},
		{"no arguments", `{"name":"list_bookings"}`},
		{"unknown tool", `{"name":"no_such_tool","arguments":{}}`},
	}
	for i, c := range calls {
		add(c.label, p.request(strconv.Itoa(200+i), "tools/call", c.params))
	}

	p.send(rpcRequest("300", "tools/call", `{"name":"progress","arguments":{"steps":3},"_meta":{"progressToken":"pt-7"}}`))
	before, resp := p.until("300")
	for i, m := range before {
		add(fmt.Sprintf("progress notification %d", i), m)
	}
	add("progress result", resp)

	p.send(rpcRequest("301", "tools/call", `{"name":"log","arguments":{"message":"hello"}}`))
	before, resp = p.until("301")
	for i, m := range before {
		add(fmt.Sprintf("log notification %d", i), m)
	}
	add("log result", resp)

	for i, ask := range []struct{ method, params, answer string }{
		{"sampling/createMessage", `{"messages":[{"role":"user","content":{"type":"text","text":"hi"}}],"maxTokens":5}`,
			`{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m","stopReason":"endTurn","n":9007199254740993}`},
		{"elicitation/create", `{"message":"Confirm?","requestedSchema":{"type":"object","properties":{"ok":{"type":"boolean"}}}}`,
			`{"action":"accept","content":{"ok":true}}`},
		{"roots/list", `{}`, `{"roots":[{"uri":"file:///tmp","name":"tmp"}]}`},
	} {
		id := strconv.Itoa(400 + i)
		p.send(rpcRequest(id, "tools/call", `{"name":"ask_client","arguments":{"method":`+strconv.Quote(ask.method)+`,"params":`+ask.params+`}}`))
		req := p.next()
		add(ask.method+" request to the agent", req)
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		if err := json.Unmarshal(req, &r); err != nil || r.ID == nil {
			t.Fatalf("%s: expected a request from the upstream, got %.300s", ask.method, req)
		}
		p.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":` + ask.answer + `}`)
		_, resp := p.until(id)
		add(ask.method+" result", resp)
	}

	huge := strings.Repeat("y", 5<<20)
	add("5 MB arguments", p.request("500", "tools/call", `{"name":"echo","arguments":{"blob":"`+huge+`"}}`))
	add("20 MB result", p.request("501", "tools/call", `{"name":"big_result","arguments":{"bytes":20971520}}`))
	add("execution counts", p.request("502", "tools/call", `{"name":"get_execution_counts"}`))
	return out
}

// TestProxyTransparency compares, byte for byte after key sorting, what the
// agent receives directly from the upstream and through the proxy.
func TestProxyTransparency(t *testing.T) {
	t.Parallel() // separate processes and files
	up := built(t, "upstream")
	direct := startPeer(t, nil, up, "-page-size", "4")
	want := transparencyScript(t, direct)
	if code, rest := direct.closeAndWait(); code != 0 || len(rest) != 0 {
		t.Fatalf("direct upstream: exit %d, %d unexpected messages", code, len(rest))
	}

	// The audit tools (on by default) would be appended to tools/list.
	proxy := startProxy(t, nil, append(upstreamFlags(t, "-page-size", "4"), "--audit-tools", "off")...)
	got := transparencyScript(t, proxy)
	code, rest := proxy.closeAndWait()
	if code != 0 {
		t.Errorf("proxy exit code %d, want 0; stderr:\n%s", code, proxy.stderr.String())
	}
	if len(rest) != 0 {
		t.Errorf("proxy sent %d messages after the session: %.300s", len(rest), rest[0])
	}
	if len(got) != len(want) {
		t.Fatalf("proxy gave %d messages, direct %d", len(got), len(want))
	}
	for i := range want {
		if got[i].label != want[i].label {
			t.Fatalf("message %d: %s vs %s", i, got[i].label, want[i].label)
		}
		sameJSON(t, want[i].label, want[i].msg, got[i].msg)
	}
	byLabel := map[string][]byte{}
	for _, c := range got {
		byLabel[c.label] = c.msg
	}
	for _, lit := range []string{"9007199254740993", "-9007199254740993", "123456789012345678901234567890", "1.0000000000000002", "1E400"} {
		if !strings.Contains(string(byLabel["big_number"]), lit) {
			t.Errorf("big_number through the proxy lost %s: %s", lit, byLabel["big_number"])
		}
	}
	if n := len(byLabel["20 MB result"]); n < 20<<20 {
		t.Errorf("20 MB result arrived with %d bytes", n)
	}
	if !strings.Contains(string(byLabel["tools/list page 0"]), `"execution":{"taskSupport":"optional"},"x-vendor":{"tier":1}`) {
		t.Errorf("unknown tool fields not passed byte for byte: %.400s", byLabel["tools/list page 0"])
	}
}

// TestProxyStartupTable checks the classification table on stderr (behaviour
// §2.2) and that stdout carries only the session.
func TestProxyStartupTable(t *testing.T) {
	t.Parallel()
	p := startProxy(t, nil, upstreamFlags(t, "-page-size", "3")...)
	p.initialize()
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	stderr := p.stderr.String()
	for _, line := range []string{
		"[agent-harness] Upstream tools (15):\n",
		"[agent-harness]   write        create_booking  (annotation readOnlyHint=false)\n",
		"[agent-harness]   write        book_room  (default write pattern)\n",
		"[agent-harness]   write        pay_invoice  (annotation destructiveHint=true)\n",
		"[agent-harness]   read         get_booking  (annotation readOnlyHint=true)\n",
		"[agent-harness]   read         list_bookings  (read prefix)\n",
		"[agent-harness]   unclassified echo  (no annotation, no pattern match)\n",
		"[agent-harness] WARNING: tool \"echo\" could not be classified as read or write.",
		"[agent-harness] Key field recognised: create_booking (idempotency_key)\n",
		"[agent-harness] Key field recognised: pay_invoice (Idempotency-Key)\n",
	} {
		if !strings.Contains(stderr, line) {
			t.Errorf("stderr lacks %q; stderr:\n%s", line, stderr)
		}
	}
	for _, l := range strings.Split(strings.TrimSpace(stderr), "\n") {
		if !strings.HasPrefix(l, "[agent-harness] ") {
			t.Errorf("stderr line without prefix: %q", l)
		}
	}
}

// TestProxyListChanged: after notifications/tools/list_changed the proxy
// re-lists and prints the new table; the notification reaches the agent.
func TestProxyListChanged(t *testing.T) {
	t.Parallel()
	p := startProxy(t, nil, upstreamFlags(t)...)
	p.initialize()
	p.send(rpcRequest("2", "tools/call", `{"name":"add_tool","arguments":{"name":"transfer_funds"}}`))
	// The notification may overtake the call's answer: the answer passes
	// the call pipeline, notifications do not.
	before, resp := p.until("2")
	if !strings.Contains(string(resp), "added transfer_funds") {
		t.Fatalf("add_tool: %s", resp)
	}
	p.backlog = append(before, p.backlog...)
	p.waitFor(func(m []byte) bool { return strings.Contains(string(m), `"notifications/tools/list_changed"`) })
	if code, _ := p.closeAndWait(); code != 0 {
		t.Fatalf("exit %d", code)
	}
	stderr := p.stderr.String()
	for _, want := range []string{
		"[agent-harness] The upstream's tool list changed.\n",
		"[agent-harness] Upstream tools (16):\n",
		"[agent-harness]   write        transfer_funds  (default write pattern)\n",
		"[agent-harness] Key field recognised: transfer_funds (idempotency_key)\n",
	} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q; stderr:\n%s", want, stderr)
		}
	}
}

// TestProxyStartFailure: an upstream that cannot start or dies before the
// session started → exit 1 with a clear stderr line, nothing on stdout.
func TestProxyStartFailure(t *testing.T) {
	t.Parallel()
	// A path under the test's own directory, so nothing else on the
	// machine can create it (a fixed /nonexistent/dir once existed).
	missing := filepath.Join(t.TempDir(), "nonexistent")
	tests := []struct {
		name  string
		flags []string
		want  []string
	}{
		{"command not found", []string{"--upstream-command", filepath.Join(missing, "agent-harness-upstream")},
			[]string{`[agent-harness] cannot start the upstream MCP server "` + filepath.Join(missing, "agent-harness-upstream") + `": `}},
		{"bad working directory", append(upstreamFlags(t), "--upstream-cwd", filepath.Join(missing, "dir")),
			[]string{`[agent-harness] cannot start the upstream MCP server`}},
		{"exits at start", upstreamFlags(t, "-exit-at-start", "3", "-stderr-lines", "2"),
			[]string{
				"[agent-harness] the upstream MCP server exited before the session started (exit status 3)\n",
				"[agent-harness] last lines of the upstream's stderr:\n",
				"[agent-harness]   | upstream stderr line 2\n",
				"[agent-harness]   | upstream: exiting at start with status 3\n",
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := startProxy(t, nil, tt.flags...)
			code, rest := p.wait()
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			if len(rest) != 0 {
				t.Errorf("stdout not empty: %q", rest)
			}
			for _, w := range tt.want {
				if !strings.Contains(p.stderr.String(), w) {
					t.Errorf("stderr lacks %q; stderr:\n%s", w, p.stderr.String())
				}
			}
		})
	}
}

// TestProxyUpstreamCrash: a crash is reported with the stderr tail; the call
// in flight and every later call get UPSTREAM_UNAVAILABLE; other requests a
// JSON-RPC error; the proxy keeps serving until EOF.
func TestProxyUpstreamCrash(t *testing.T) {
	t.Parallel()
	p := startProxy(t, nil, upstreamFlags(t, "-stderr-lines", "25")...)
	p.initialize()
	resp := p.request("2", "tools/call", `{"name":"crash","arguments":{"code":7}}`)
	sameJSON(t, "call in flight", []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"UPSTREAM_UNAVAILABLE: the upstream MCP server exited before it answered this call. The outcome is unknown."}],"isError":true}}`), resp)
	resp = p.request("3", "tools/call", `{"name":"create_booking","arguments":{"room":"a"}}`)
	sameJSON(t, "later call", []byte(`{"jsonrpc":"2.0","id":3,"result":{"content":[{"type":"text","text":"UPSTREAM_UNAVAILABLE: the upstream MCP server is not running (it exited). No call was forwarded."}],"isError":true}}`), resp)
	resp = p.request("4", "ping", "")
	sameJSON(t, "later request", []byte(`{"jsonrpc":"2.0","id":4,"error":{"code":-32000,"message":"UPSTREAM_UNAVAILABLE: the upstream MCP server is not running (it exited). No call was forwarded."}}`), resp)
	code, _ := p.closeAndWait()
	if code != 0 {
		t.Errorf("exit %d, want 0", code)
	}
	stderr := p.stderr.String()
	for _, w := range []string{
		"[agent-harness] the upstream MCP server exited unexpectedly (exit status 7); later tool calls get UPSTREAM_UNAVAILABLE\n",
		"[agent-harness]   | upstream stderr line 25\n",
		"[agent-harness]   | upstream: crashing on request with status 7\n",
	} {
		if !strings.Contains(stderr, w) {
			t.Errorf("stderr lacks %q; stderr:\n%s", w, stderr)
		}
	}
	// The tail is bounded: line 6 of 26 is too old to be shown.
	if strings.Contains(stderr, "  | upstream stderr line 6\n") {
		t.Errorf("stderr tail longer than 20 lines:\n%s", stderr)
	}
}

// TestProxyCallTimeout: no answer within --upstream-timeout → a tool error
// saying the outcome is unknown; the late answer is dropped; the session
// goes on.
//
// The timeout also bounds the proxy's start-up listing, so it leaves room
// for a slow start on a loaded machine.
func TestProxyCallTimeout(t *testing.T) {
	p := startProxy(t, nil, append(upstreamFlags(t), "--upstream-timeout", "1s")...)
	p.initialize()
	resp := p.request("2", "tools/call", `{"name":"create_booking","arguments":{"room":"a","sleep_ms":2500}}`)
	sameJSON(t, "timed-out call", []byte(`{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"Error: the upstream MCP server did not answer within 1000 ms (agent-harness call timeout). The outcome is unknown."}],"isError":true}}`), resp)
	if resp := p.request("3", "ping", ""); !strings.Contains(string(resp), `"result":{}`) {
		t.Errorf("ping after a timeout: %s", resp)
	}
	code, rest := p.closeAndWait()
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	for _, m := range rest {
		if strings.Contains(string(m), `"id":2`) {
			t.Errorf("late answer reached the agent: %s", m)
		}
	}
}

// TestProxyAgentInput: invalid JSON, batches, deep nesting and huge
// arguments never crash the proxy.
func TestProxyAgentInput(t *testing.T) {
	t.Parallel()
	p := startProxy(t, nil, upstreamFlags(t)...)
	p.initialize()
	p.send(`{"jsonrpc":"2.0","id":9,"method":`)
	m := p.next()
	if !strings.Contains(string(m), `"id":null,"error":{"code":-32700,`) {
		t.Errorf("invalid JSON: got %s", m)
	}
	p.send(`[{"jsonrpc":"2.0","id":10,"method":"ping"}]`)
	m = p.next()
	if !strings.Contains(string(m), `"id":null,"error":{"code":-32600,`) {
		t.Errorf("batch: got %s", m)
	}
	deep := strings.Repeat(`{"a":[`, 100000) + "1" + strings.Repeat(`]}`, 100000)
	p.send(rpcRequest("11", "tools/call", `{"name":"create_booking","arguments":`+deep+`}`))
	m = p.next()
	if want := `{"jsonrpc":"2.0","id":11,"error":{"code":-32600,"message":"agent-harness: the message is nested 200002 levels deep (more than 10000); it was not forwarded"}}`; string(m) != want {
		t.Errorf("deep nesting: got %.300s", m)
	}
	// At the limit (10000 levels in all): forwarded and answered.
	p.send(rpcRequest("13", "tools/call", `{"name":"echo","arguments":`+strings.Repeat("[", 9998)+strings.Repeat("]", 9998)+`}`))
	if m := p.next(); !strings.HasPrefix(string(m), `{"jsonrpc":"2.0","id":13,"result":{"content":[{"type":"text","text":"[[[`) {
		t.Errorf("nesting at the limit: got %.300s", m)
	}
	if resp := p.request("12", "ping", ""); !strings.Contains(string(resp), `"result":{}`) {
		t.Errorf("ping after bad input: %s", resp)
	}
	if code, _ := p.closeAndWait(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
}

// TestProxyStopsProcessGroup: after the proxy ends — agent EOF, SIGTERM,
// SIGINT, SIGHUP, broken pipe — no process of the upstream's group is
// left, also not a grandchild of an `sh -c` wrapper.
func TestProxyStopsProcessGroup(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name     string
		end      func(t *testing.T, p *peer)
		wantCode int
		wantLog  string
	}{
		{"agent EOF", func(t *testing.T, p *peer) { p.stdin.Close() }, 0, ""},
		{"SIGTERM", func(t *testing.T, p *peer) { _ = p.cmd.Process.Signal(syscall.SIGTERM) }, 128 + 15, ""},
		{"SIGINT", func(t *testing.T, p *peer) { _ = p.cmd.Process.Signal(syscall.SIGINT) }, 128 + 2, ""},
		{"SIGHUP", func(t *testing.T, p *peer) { _ = p.cmd.Process.Signal(syscall.SIGHUP) }, 128 + 1, ""},
		{"broken pipe", func(t *testing.T, p *peer) {
			p.stdout.Close() // the agent stops reading
			p.send(rpcRequest("5", "ping", ""))
		}, 141, "[agent-harness] the agent stopped reading (broken pipe); stopping\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			pidFile := filepath.Join(dir, "grandchild.pid")
			wrapperPid := filepath.Join(dir, "wrapper-child.pid")
			// sh stays the group leader's parent shell: the upstream runs
			// as its child, and a `sleep` it starts is a grandchild.
			script := `sleep 300 & echo $! > "$WRAPPER_PID"; "$UPSTREAM" -grandchild-pidfile "$GRANDCHILD_PID"`
			p := startProxy(t, []string{
				"UPSTREAM=" + built(t, "upstream"), "GRANDCHILD_PID=" + pidFile, "WRAPPER_PID=" + wrapperPid,
			}, "--upstream-command", "sh", "--upstream-arg=-c", "--upstream-arg", script)
			p.initialize()
			pids := []int{readPid(t, pidFile), readPid(t, wrapperPid)}
			tt.end(t, p)
			code, _ := p.wait()
			if got := exitStatus(p.cmd.ProcessState); got != tt.wantCode {
				t.Errorf("exit %d (code %d), want %d; stderr:\n%s", got, code, tt.wantCode, p.stderr.String())
			}
			for _, pid := range pids {
				waitGone(t, pid)
			}
			stderr := p.stderr.String()
			if strings.Contains(stderr, "goroutine ") || strings.Contains(stderr, "panic") {
				t.Errorf("stack trace on stderr:\n%s", stderr)
			}
			if tt.wantLog != "" && !strings.Contains(stderr, tt.wantLog) {
				t.Errorf("stderr lacks %q:\n%s", tt.wantLog, stderr)
			}
		})
	}
}

// TestProxyGoSDKUpstream: a go-sdk server accepts the proxy's listing
// before notifications/initialized, and everything compares equal.
func TestProxyGoSDKUpstream(t *testing.T) {
	t.Parallel()
	script := func(p *peer) [][]byte {
		out := [][]byte{p.initialize()}
		out = append(out, p.request("2", "tools/list", `{}`))
		out = append(out, p.request("3", "tools/call", `{"name":"create_booking","arguments":{"room":"a","idempotency_key":"k"}}`))
		out = append(out, p.request("4", "tools/call", `{"name":"nope","arguments":{}}`))
		return out
	}
	sdk := built(t, "sdkupstream")
	direct := startPeer(t, nil, sdk)
	want := script(direct)
	direct.closeAndWait()
	p := startProxy(t, nil, "--upstream-command", sdk)
	got := script(p)
	if code, _ := p.closeAndWait(); code != 0 {
		t.Errorf("exit %d; stderr:\n%s", code, p.stderr.String())
	}
	for i := range want {
		sameJSON(t, fmt.Sprintf("message %d", i), want[i], got[i])
	}
	for _, w := range []string{
		"[agent-harness] Upstream tools (3):\n",
		"[agent-harness]   unclassified sync_ledger  (no annotation, no pattern match)\n",
	} {
		if !strings.Contains(p.stderr.String(), w) {
			t.Errorf("stderr lacks %q:\n%s", w, p.stderr.String())
		}
	}
}

// TestProxyAuditToolsAppended: with the audit tools on (the default) the
// last tools/list page is the upstream's bytes with the two audit tools
// appended to the tools array; earlier pages are unchanged.
func TestProxyAuditToolsAppended(t *testing.T) {
	t.Parallel()
	list := func(p *peer) [][]byte {
		p.initialize()
		first := p.request("2", "tools/list", `{}`)
		last := p.request("3", "tools/list", `{"cursor":"page-8"}`)
		return [][]byte{first, last}
	}
	direct := startPeer(t, nil, built(t, "upstream"), "-page-size", "8")
	want := list(direct)
	direct.closeAndWait()
	p := startProxy(t, nil, upstreamFlags(t, "-page-size", "8")...)
	got := list(p)
	p.closeAndWait()
	if string(got[0]) != string(want[0]) {
		t.Errorf("first page changed:\n direct %.300s\n  proxy %.300s", want[0], got[0])
	}
	cut := strings.LastIndex(string(want[1]), "]")
	if !strings.HasPrefix(string(got[1]), string(want[1][:cut])+`,{"name":"cuonztech__get_report"`) ||
		!strings.HasSuffix(string(got[1]), string(want[1][cut:])) ||
		!strings.Contains(string(got[1]), `{"name":"cuonztech__get_score"`) {
		t.Errorf("last page: want the upstream's bytes with the audit tools appended, got %.2000s", got[1])
	}
}

// sdkAgentSession runs a go-sdk client with its DEFAULT options — protocol
// 2026-07-28, which starts with server/discover (SEP-2575) instead of
// initialize — over cmd, lists all tools (when list is set) and calls
// create_booking twice with the same arguments. It returns the tools, the
// two results as JSON, and the protocol version the session negotiated.
func sdkAgentSession(t *testing.T, cmd *exec.Cmd, list bool) (tools []byte, results [2][]byte, version string) {
	t.Helper()
	ctx := t.Context()
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-sdk-agent", Version: "0.0.1"}, nil)
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd, TerminateDuration: maxWait}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	version = cs.InitializeResult().ProtocolVersion
	if list {
		var all []*mcp.Tool
		for tool, err := range cs.Tools(ctx, nil) {
			if err != nil {
				t.Fatalf("tools/list: %v", err)
			}
			all = append(all, tool)
		}
		if tools, err = json.Marshal(all); err != nil {
			t.Fatal(err)
		}
	}
	for i := range results {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: map[string]any{"room": "a"}})
		if err != nil {
			t.Fatalf("call %d: %v", i, err)
		}
		if results[i], err = json.Marshal(res); err != nil {
			t.Fatal(err)
		}
	}
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
	return tools, results, version
}

// TestProxyGoSDKClientDiscover: a go-sdk client with its default protocol
// version starts the session with server/discover. The proxy must list and
// classify the tools there too (else every call would be one of an unknown
// tool and every run NOT_TESTED), and stay transparent.
func TestProxyGoSDKClientDiscover(t *testing.T) {
	t.Parallel()
	sdk := built(t, "sdkupstream")
	wantTools, wantResults, wantVersion := sdkAgentSession(t, exec.Command(sdk), true)
	if wantVersion != "2026-07-28" {
		t.Fatalf("direct session negotiated %q; this test is about the 2026-07-28 discover handshake", wantVersion)
	}

	t.Run("transparent", func(t *testing.T) {
		cmd := exec.Command(built(t, "agent-harness"), "proxy", "--upstream-command", sdk, "--audit-tools", "off")
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		tools, results, version := sdkAgentSession(t, cmd, true)
		if version != wantVersion {
			t.Errorf("protocol version %q through the proxy, %q direct", version, wantVersion)
		}
		sameJSON(t, "tools", wantTools, tools)
		for i := range results {
			sameJSON(t, fmt.Sprintf("call %d", i), wantResults[i], results[i])
		}
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
		}
		for _, w := range []string{
			"[agent-harness] Upstream tools (3):\n",
			"[agent-harness]   write        create_booking  (default write pattern)\n",
			"[agent-harness]   read         get_booking  (annotation readOnlyHint=true)\n",
			"[agent-harness]   unclassified sync_ledger  (no annotation, no pattern match)\n",
			"[agent-harness] Key field recognised: create_booking (idempotency_key)\n",
		} {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("stderr lacks %q:\n%s", w, stderr.String())
			}
		}
	})

	t.Run("F1 is judged", func(t *testing.T) {
		reportFile := filepath.Join(t.TempDir(), "report.json")
		cmd := exec.Command(built(t, "agent-harness"), "proxy", "--upstream-command", sdk,
			"--scenario", "F1", "--audit-tools", "off", "--report-file", reportFile)
		stderr := &syncBuffer{}
		cmd.Stderr = stderr
		// The agent calls without listing first: only the proxy's own
		// listing classifies the tool.
		_, results, _ := sdkAgentSession(t, cmd, false)
		if code := cmd.ProcessState.ExitCode(); code != 0 {
			t.Errorf("exit %d; stderr:\n%s", code, stderr.String())
		}
		// F1: the first write is executed, the agent gets a timeout; the
		// same write sent again is executed a second time.
		// The go-sdk client negotiates 2026-07-28, which requires
		// resultType in every CallToolResult (fault.VersionResultType).
		sameJSON(t, "F1 answer", []byte(`{"content":[{"type":"text","text":"Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown."}],"isError":true,"resultType":"complete"}`), results[0])
		if strings.Contains(string(results[1]), `"isError":true`) {
			t.Errorf("second call: %s", results[1])
		}
		b, err := os.ReadFile(reportFile)
		if err != nil {
			t.Fatal(err)
		}
		var rep struct {
			Status  string `json:"status"`
			Verdict string `json:"verdict"`
			Report  struct {
				Violations []struct{ Type string } `json:"violations"`
			} `json:"report"`
			ToolClassification []struct{ Name, Class string } `json:"toolClassification"`
		}
		if err := json.Unmarshal(b, &rep); err != nil {
			t.Fatalf("report file: %v\n%s", err, b)
		}
		if rep.Status != "finished" || rep.Verdict != "FAIL" || len(rep.Report.Violations) != 1 || rep.Report.Violations[0].Type != "DUPLICATE_EXECUTION" {
			t.Errorf("want a finished FAIL with DUPLICATE_EXECUTION, got %.1500s", b)
		}
		classes := map[string]string{}
		for _, c := range rep.ToolClassification {
			classes[c.Name] = c.Class
		}
		if classes["create_booking"] != "write" || classes["get_booking"] != "read" || len(classes) != 3 {
			t.Errorf("toolClassification %v", rep.ToolClassification)
		}
	})
}
