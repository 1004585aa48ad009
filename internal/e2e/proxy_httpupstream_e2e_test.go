package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPUpstreamStdioAgent: an agent on stdio, the upstream over
// Streamable HTTP (the go-sdk's server, event-stream and JSON answers).
// F1: the report's executions equal the upstream's own counts; a
// notification sent before the answer reaches the agent before it;
// progress passes with the agent's token.
func TestHTTPUpstreamStdioAgent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	for _, mode := range []string{"sse", "json"} {
		t.Run(mode, func(t *testing.T) {
			var args []string
			if mode == "json" {
				args = append(args, "-json")
			}
			up := startHTTPUpstream(t, args...)
			report := filepath.Join(t.TempDir(), "report.json")
			p := startProxy(t, nil, "--upstream-url", up.url, "--scenario", "F1", "--audit-tools", "off", "--report-file", report)
			p.initialize()
			call := `{"name":"create_booking","arguments":{"room":"9"}}`
			first := p.request("2", "tools/call", call)
			if !bytes.Contains(first, []byte(`"isError":true`)) {
				t.Fatalf("first call: want the injected timeout, got %s", first)
			}
			second := p.request("3", "tools/call", call)
			if !bytes.Contains(second, []byte("booked 9")) {
				t.Fatalf("second call: %s", second)
			}
			p.request("9", "logging/setLevel", `{"level":"debug"}`)
			p.send(rpcRequest("4", "tools/call", `{"name":"log","arguments":{"message":"hi"}}`))
			before, resp := p.until("4")
			if !bytes.Contains(resp, []byte("logged")) {
				t.Fatalf("log: answer %s", resp)
			}
			if mode == "sse" {
				// On the POST's event stream: before the answer.
				if len(before) != 1 || !bytes.Contains(before[0], []byte(`"notifications/message"`)) {
					t.Fatalf("log: before the answer %q", before)
				}
			} else {
				// JSON answers: the server sends it on the GET stream.
				p.backlog = append(before, p.backlog...)
				p.waitFor(func(m []byte) bool { return bytes.Contains(m, []byte(`"notifications/message"`)) })
			}
			p.send(rpcRequest("5", "tools/call", `{"name":"progress","arguments":{"steps":2},"_meta":{"progressToken":"pt"}}`))
			before, _ = p.until("5")
			if mode == "json" {
				// The server sends them on the GET stream: any order
				// relative to the answer.
				p.backlog = append(before, p.backlog...)
				before = nil
				for range 2 {
					before = append(before, p.waitFor(func(m []byte) bool { return bytes.Contains(m, []byte(`"notifications/progress"`)) }))
					p.backlog = slices.DeleteFunc(p.backlog, func(m []byte) bool { return bytes.Equal(m, before[len(before)-1]) })
				}
			}
			if len(before) != 2 || !bytes.Contains(before[0], []byte(`"progressToken":"pt"`)) {
				t.Fatalf("progress: %q", before)
			}
			if code, _ := p.closeAndWait(); code != 0 {
				t.Fatalf("exit %d\n%s", code, p.stderr.String())
			}
			r, _ := readUpstreamReport(t, report)
			if got, want := r.executions("create_booking"), up.executions(t); got != want || want != 2 {
				t.Errorf("report executions %d, upstream counted %d (want 2)", got, want)
			}
			if len(r.Sessions) != 1 || r.Sessions[0].ID != "s1" || r.Sessions[0].Transport != "stdio" {
				t.Errorf("sessions %+v, want one stdio session s1", r.Sessions)
			}
			if r.Transport.Agent != "stdio" || r.Transport.Upstream != "http" || r.Verdict != "FAIL" {
				t.Errorf("report: %+v", r)
			}
		})
	}
}

// TestHTTPUpstreamStatus maps the upstream's HTTP statuses to outcomes:
// 429 before the tool (not executed, an isError result naming it; the
// operation NOT_EXECUTED, not UPSTREAM_REJECTED: issue 17 item 12), 500
// after the tool ran (outcome unknown), and the session expiring (reported
// once on stderr, no re-initialise).
func TestHTTPUpstreamStatus(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	call := `{"name":"create_booking","arguments":{"room":"9"}}`
	t.Run("429", func(t *testing.T) {
		up := startHTTPUpstream(t, "-status-calls", "429")
		report := filepath.Join(t.TempDir(), "report.json")
		p := startProxy(t, nil, "--upstream-url", up.url, "--audit-tools", "off", "--report-file", report)
		p.initialize()
		resp := p.request("2", "tools/call", call)
		if !bytes.Contains(resp, []byte(`"isError":true`)) || !bytes.Contains(resp, []byte("HTTP 429")) || !bytes.Contains(resp, []byte("Retry-After: 3")) {
			t.Fatalf("429: %s", resp)
		}
		p.closeAndWait()
		r, _ := readUpstreamReport(t, report)
		if len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "NOT_EXECUTED" || up.executions(t) != 0 {
			t.Errorf("report %+v, upstream executed %d", r.Report.Operations, up.executions(t))
		}
	})
	t.Run("500 after execution", func(t *testing.T) {
		up := startHTTPUpstream(t, "-status-after-exec", "500", "-json")
		report := filepath.Join(t.TempDir(), "report.json")
		p := startProxy(t, nil, "--upstream-url", up.url, "--audit-tools", "off", "--report-file", report)
		p.initialize()
		resp := p.request("2", "tools/call", call)
		// A tool result the model sees (not a protocol error), marked so
		// the judge counts it as unknown.
		if !bytes.Contains(resp, []byte("HTTP 500")) || !bytes.Contains(resp, []byte("outcome is unknown")) ||
			!bytes.Contains(resp, []byte(`"isError":true`)) || !bytes.Contains(resp, []byte(`"agent-harness/outcome":"unknown"`)) {
			t.Fatalf("500: %s", resp)
		}
		p.closeAndWait()
		r, _ := readUpstreamReport(t, report)
		if len(r.Report.Operations) != 1 || r.Report.Operations[0].Outcome != "EXECUTION_UNKNOWN" || up.executions(t) != 1 {
			t.Errorf("report %+v, upstream executed %d", r.Report.Operations, up.executions(t))
		}
	})
	t.Run("session expired", func(t *testing.T) {
		// initialize carries no session id; notifications/initialized,
		// tools/list (the proxy's listing) and the first call do.
		up := startHTTPUpstream(t, "-expire-after", "3")
		p := startProxy(t, nil, "--upstream-url", up.url, "--audit-tools", "off")
		p.initialize()
		if resp := p.request("2", "tools/call", call); !bytes.Contains(resp, []byte("booked 9")) {
			t.Fatalf("first call: %s", resp)
		}
		for _, id := range []string{"3", "4"} {
			resp := p.request(id, "tools/call", call)
			if !bytes.Contains(resp, []byte("session expired")) {
				t.Fatalf("call %s after expiry: %s", id, resp)
			}
		}
		p.closeAndWait()
		if n := strings.Count(p.stderr.String(), "the upstream MCP session expired"); n != 1 {
			t.Errorf("expiry reported %d times on stderr:\n%s", n, p.stderr.String())
		}
		if up.executions(t) != 1 {
			t.Errorf("upstream executed %d", up.executions(t))
		}
	})
}

// TestHTTPUpstreamHeaderEnvSecret: --upstream-header-env takes the value
// from the environment; it reaches the upstream and appears nowhere else.
func TestHTTPUpstreamHeaderEnvSecret(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	const secret = "Bearer s3cr3t-value-0042"
	up := startHTTPUpstream(t, "-require-header", "Authorization: "+secret)
	report := filepath.Join(t.TempDir(), "report.json")
	p := startProxy(t, []string{"UPSTREAM_TOKEN=" + secret}, "--upstream-url", up.url, "--upstream-header-env", "Authorization=UPSTREAM_TOKEN",
		"--upstream-header", "X-Trace: 1", "--audit-tools", "off", "--report-file", report)
	p.initialize()
	if resp := p.request("2", "tools/call", `{"name":"create_booking","arguments":{"room":"1"}}`); !bytes.Contains(resp, []byte("booked 1")) {
		t.Fatalf("call: %s", resp)
	}
	p.closeAndWait()
	_, b := readUpstreamReport(t, report)
	for what, s := range map[string]string{"stderr": p.stderr.String(), "report": string(b), "argv": strings.Join(p.cmd.Args, " ")} {
		if strings.Contains(s, "s3cr3t") {
			t.Errorf("the secret appears in %s", what)
		}
	}
}

// TestHTTPBothSidesGoSDK: HTTP on both sides (the go-sdk's client and
// server), F2 at the HTTP layer (a real 429 the client sees, nothing
// executed), then F4-style plain calls executed once each.
func TestHTTPBothSidesGoSDK(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	up := startHTTPUpstream(t)
	p := startHTTPProxy(t, "--upstream-url", up.url, "--scenario", "F2", "--retry-after", "1", "--audit-tools", "off", "--fault-layer", "http")
	ctx, cancel := context.WithTimeout(context.Background(), sessionWait)
	defer cancel()
	var logs int
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-agent", Version: "1"}, &mcp.ClientOptions{
		//lint:ignore SA1019 the logging notifications are what the transparency check relays
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { logs++ },
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "ok " + req.Params.Message}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.stderr.String())
	}
	//lint:ignore SA1019 the logging notifications are what the transparency check relays
	if err := cs.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"}); err != nil {
		t.Fatal(err)
	}
	args := map[string]any{"room": "3"}
	if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: args}); err == nil || !strings.Contains(err.Error(), "429") && !strings.Contains(err.Error(), "Too Many") {
		t.Fatalf("first call: want the client to see the 429, got %v", err)
	}
	if up.executions(t) != 0 {
		t.Fatalf("the 429'd call executed")
	}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "log", Arguments: map[string]any{"message": "m"}})
	if err != nil || res.IsError {
		t.Fatalf("log: %v %+v", err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask", Arguments: map[string]any{"message": "sure?"}})
	if err != nil || res.IsError {
		t.Fatalf("ask: %v %+v", err, res)
	}
	if b, _ := json.Marshal(res); !bytes.Contains(b, []byte("ok sure?")) {
		t.Errorf("elicitation: %s", b)
	}
	_ = cs.Close()
	if code := p.stop(syscall.SIGTERM); code != 143 {
		t.Errorf("exit %d", code)
	}
	r, _ := readUpstreamReport(t, p.report)
	if r.Transport.Agent != "http" || r.Transport.Upstream != "http" || r.executions("create_booking") != up.executions(t) {
		t.Errorf("report %+v, upstream counted %d", r, up.executions(t))
	}
	if logs != 1 {
		t.Errorf("log notifications: %d", logs)
	}
}

// TestHTTPSeveralSessionsJudgedTogether: two agent sessions on one HTTP
// proxy, each with its own upstream session on one backend; a write
// executed by both is executed twice, the report lists both sessions and
// names each attempt's.
func TestHTTPSeveralSessionsJudgedTogether(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	up := startHTTPUpstream(t)
	p := startHTTPProxy(t, "--upstream-url", up.url, "--scenario", "F1", "--audit-tools", "off")
	call := rpcRequest("5", "tools/call", `{"name":"create_booking","arguments":{"room":"4"}}`)
	var ids []string
	for i, want := range []string{`"isError":true`, `booked 4`} {
		s := newRawSession(t, p.url)
		s.initialize()
		ids = append(ids, s.id)
		resp := s.post(call)
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if !bytes.Contains(b, []byte(want)) {
			t.Fatalf("session %d: %s", i+1, b)
		}
	}
	if ids[0] == ids[1] {
		t.Fatal("two sessions share an Mcp-Session-Id")
	}
	if code := p.stop(syscall.SIGTERM); code != 143 {
		t.Errorf("exit %d", code)
	}
	_, b := readUpstreamReport(t, p.report)
	var r struct {
		Verdict  string
		Sessions []struct{ ID, Transport string } `json:"sessions"`
		Report   struct {
			Operations []struct {
				Executions int `json:"executions"`
				AttemptLog []struct {
					Session string `json:"session"`
				} `json:"attemptLog"`
			} `json:"operations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Sessions) != 2 || r.Sessions[0].ID != "s1" || r.Sessions[1].Transport != "http" {
		t.Errorf("sessions %+v", r.Sessions)
	}
	ops := r.Report.Operations
	if len(ops) != 1 || ops[0].Executions != 2 || up.executions(t) != 2 || r.Verdict != "FAIL" {
		t.Fatalf("report %s; upstream counted %d", b, up.executions(t))
	}
	if len(ops[0].AttemptLog) != 2 || ops[0].AttemptLog[0].Session != "s1" || ops[0].AttemptLog[1].Session != "s2" {
		t.Errorf("attemptLog sessions %+v", ops[0].AttemptLog)
	}
	for _, id := range ids {
		if strings.Contains(string(b), id) {
			t.Errorf("the report holds an Mcp-Session-Id")
		}
	}
}

// TestHTTPAgentHeadersReachUpstream: HTTP on both sides, the agent's own
// headers reach the upstream (its hop-by-hop headers and session id do
// not); a --upstream-header of the same name wins.
func TestHTTPAgentHeadersReachUpstream(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	up := startHTTPUpstream(t, "-require-header", "X-Tenant: acme")
	p := startHTTPProxy(t, "--upstream-url", up.url, "--audit-tools", "off")
	s := newRawSession(t, p.url)
	s.extra = []string{"X-Tenant", "acme"}
	s.initialize()
	resp := s.post(rpcRequest("2", "tools/call", `{"name":"create_booking","arguments":{"room":"8"}}`))
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte("booked 8")) {
		t.Fatalf("call: %d %s\n%s", resp.StatusCode, b, p.stderr.String())
	}
	p.stop(syscall.SIGTERM)
	if up.executions(t) != 1 {
		t.Errorf("upstream executed %d", up.executions(t))
	}
}

// TestHTTPServerEverything: @modelcontextprotocol/server-everything in its
// Streamable HTTP mode behind the proxy (--upstream-url), with an agent on
// stdio and with the TypeScript SDK's HTTP client (HTTP↔HTTP). Its port
// comes from :0 (the server takes it from PORT and does not print the one
// it got).
func TestHTTPServerEverything(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	cmdline := npmServer(t, "server-everything")
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	cmd := exec.Command(cmdline[0], append(cmdline[1:], "streamableHttp")...)
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	br := bufio.NewReader(stderr)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("server-everything did not start: %v", err)
		}
		if strings.Contains(line, "listening on port") {
			break
		}
	}
	go func() { _, _ = io.Copy(io.Discard, br) }()
	url := "http://127.0.0.1:" + strconv.Itoa(port) + "/mcp"

	t.Run("stdio agent", func(t *testing.T) {
		p := startProxy(t, nil, "--upstream-url", url, "--audit-tools", "off")
		init := p.initialize()
		if !bytes.Contains(init, []byte(`"serverInfo"`)) {
			t.Fatalf("initialize: %s", init)
		}
		resp := p.request("2", "tools/call", `{"name":"echo","arguments":{"message":"über 9007199254740993"}}`)
		if !bytes.Contains(resp, []byte("über 9007199254740993")) {
			t.Fatalf("echo: %s\n%s", resp, p.stderr.String())
		}
		if code, _ := p.closeAndWait(); code != 0 {
			t.Fatalf("exit %d", code)
		}
	})
	t.Run("TypeScript HTTP client", func(t *testing.T) {
		p := startHTTPProxy(t, "--upstream-url", url, "--audit-tools", "off")
		res := tsHTTPClient(t, p.url, `{"calls":[{"name":"echo","arguments":{"message":"via both"}}]}`)
		if b, _ := json.Marshal(res); res["error"] != nil || !bytes.Contains(b, []byte("via both")) {
			t.Fatalf("client: %s\n%s", b, p.stderr.String())
		}
		p.stop(syscall.SIGTERM)
	})
}

// TestHTTPCombinationsF4: F4 (the writes pass) in the three combinations
// with HTTP: the same write sent twice executes twice, and the report's
// executions equal the upstream's own counts.
func TestHTTPCombinationsF4(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	call := `{"name":"create_booking","arguments":{"room":"5","date":"2026-11-03"}}`
	rawTwice := func(t *testing.T, url string) {
		s := newRawSession(t, url)
		s.initialize()
		for _, id := range []string{"2", "3"} {
			resp := s.post(rpcRequest(id, "tools/call", call))
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 || bytes.Contains(b, []byte(`"isError":true`)) {
				t.Fatalf("call %s: %d %s", id, resp.StatusCode, b)
			}
		}
	}
	check := func(t *testing.T, report string, upstream int) {
		r, b := readUpstreamReport(t, report)
		if got := r.executions("create_booking"); got != upstream || upstream != 2 || r.Verdict != "FAIL" {
			t.Errorf("report executions %d, upstream %d, verdict %s\n%s", got, upstream, r.Verdict, b)
		}
	}
	t.Run("http agent, stdio upstream", func(t *testing.T) {
		p := startHTTPProxy(t, "--scenario", "F4", "--audit-tools", "off")
		rawTwice(t, p.url)
		p.stop(syscall.SIGTERM)
		check(t, p.report, p.upstreamExecutions()["create_booking"])
	})
	t.Run("stdio agent, http upstream", func(t *testing.T) {
		up := startHTTPUpstream(t)
		report := filepath.Join(t.TempDir(), "report.json")
		p := startProxy(t, nil, "--upstream-url", up.url, "--scenario", "F4", "--audit-tools", "off", "--report-file", report)
		p.initialize()
		for _, id := range []string{"2", "3"} {
			if resp := p.request(id, "tools/call", call); !bytes.Contains(resp, []byte("booked 5")) {
				t.Fatalf("call %s: %s", id, resp)
			}
		}
		p.closeAndWait()
		check(t, report, up.executions(t))
	})
	t.Run("http both sides", func(t *testing.T) {
		up := startHTTPUpstream(t)
		p := startHTTPProxy(t, "--upstream-url", up.url, "--scenario", "F4", "--audit-tools", "off")
		rawTwice(t, p.url)
		p.stop(syscall.SIGTERM)
		check(t, p.report, up.executions(t))
	})
}
