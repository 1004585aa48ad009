package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"

	"github.com/cuonztech/agent-harness/internal/relay/sse"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestHTTPFaultLayerRaw checks each fault delivered as HTTP with a raw
// net/http client: the status, Retry-After, the cut body, the dropped
// connection, and the upstream's own execution counts against the report.
func TestHTTPFaultLayerRaw(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	call := rpcRequest("7", "tools/call", `{"name":"create_booking","arguments":`+bookingArgs+`}`)
	tests := []struct {
		scenario string
		check    func(t *testing.T, resp *http.Response, err error)
		executed int
		fault    string
	}{
		{"F2", func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") != "60" {
				t.Fatalf("F2: want 429 with Retry-After: 60, got %v %v", respStatus(resp), err)
			}
		}, 0, "rate_limit"},
		{"F5", func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != http.StatusInternalServerError {
				t.Fatalf("F5: want 500, got %v %v", respStatus(resp), err)
			}
		}, 0, "server_error"},
		{"F3", func(t *testing.T, resp *http.Response, err error) {
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("F3: want 200, got %v %v", respStatus(resp), err)
			}
			b, rerr := io.ReadAll(resp.Body)
			if string(b) != `{"` || rerr == nil {
				t.Fatalf("F3: want a body cut after {\" (a read error), got %q, %v", b, rerr)
			}
		}, 0, "truncated_json"},
		{"F1", func(t *testing.T, resp *http.Response, err error) {
			if err == nil {
				t.Fatalf("F1: want a dropped connection, got %s", respStatus(resp))
			}
		}, 1, "timeout"},
	}
	for _, tc := range tests {
		t.Run(tc.scenario, func(t *testing.T) {
			p := startHTTPProxy(t, "--scenario", tc.scenario, "--audit-tools", "off", "--fault-layer", "http")
			s := newRawSession(t, p.url)
			s.initialize()
			req, _ := http.NewRequest(http.MethodPost, s.url, strings.NewReader(call))
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Accept", "application/json, text/event-stream")
			req.Header.Set("Mcp-Session-Id", s.id)
			resp, err := s.hc.Do(req)
			tc.check(t, resp, err)
			if resp != nil {
				resp.Body.Close()
			}
			if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
				t.Errorf("exit code %d, want %d", code, 128+int(syscall.SIGTERM))
			}
			r, hr := p.readReport(), p.readHTTPReport()
			if r.Status != "finished" || hr.Transport.Agent != "http" {
				t.Errorf("report status %q transport %+v", r.Status, hr.Transport)
			}
			p.checkExecutions(r)
			if got := p.upstreamExecutions()["create_booking"]; got != tc.executed {
				t.Errorf("upstream executed create_booking %d times, want %d", got, tc.executed)
			}
			if ops := hr.Report.Operations; len(ops) != 1 || len(ops[0].AttemptLog) != 1 || ops[0].AttemptLog[0].Fault != tc.fault {
				t.Errorf("report operations %+v, want one attempt with fault %q", ops, tc.fault)
			}
			if tc.scenario == "F1" && !strings.Contains(p.stderr.String(), "F1 fired on create_booking (call 1): executed upstream; the agent's connection was dropped without an answer") {
				t.Errorf("no F1 line saying the connection was dropped; stderr:\n%s", p.stderr.String())
			}
		})
	}
}

func respStatus(resp *http.Response) string {
	if resp == nil {
		return "no response"
	}
	return fmt.Sprintf("%d %v", resp.StatusCode, resp.Header)
}

// TestHTTPSessionRules checks Origin validation (nothing forwarded), the
// session id and protocol version rules, GET and DELETE.
func TestHTTPSessionRules(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--audit-tools", "off", "--listen-allow-origin", "https://app.example.com")
	s := newRawSession(t, p.url)

	resp := s.post(rpcRequest("1", "initialize", initializeParams), "Origin", "http://evil.example")
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("foreign Origin: %d, want 403", resp.StatusCode)
	}
	p.stderr.waitFor(t, `refused a request from Origin "http://evil.example"`)
	if strings.Contains(p.stderr.String(), "Upstream tools") {
		t.Fatalf("a refused request started a session:\n%s", p.stderr.String())
	}
	resp = s.post(rpcRequest("1", "initialize", initializeParams), "MCP-Protocol-Version", "1999-01-01")
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("unsupported protocol version: %d, want 400", resp.StatusCode)
	}
	s.id = "no-such-session"
	resp = s.post(rpcRequest("2", "tools/list", ""))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown session: %d, want 404", resp.StatusCode)
	}
	s.id = ""
	resp = s.post(rpcRequest("1", "initialize", initializeParams), "Origin", "https://app.example.com")
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("allowed Origin: %d", resp.StatusCode)
	}
	s.initialize() // a second session, from a loopback client without Origin
	resp = s.post(rpcRequest("2", "tools/list", ""), "Origin", "http://localhost:3000")
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"create_booking"`)) || !bytes.HasPrefix(b, []byte(`{"jsonrpc":"2.0","id":2,`)) {
		t.Fatalf("tools/list: %d %s", resp.StatusCode, b)
	}

	// GET without Accept: text/event-stream, then a real stream.
	get := func(accept string) *http.Response {
		req, _ := http.NewRequest(http.MethodGet, s.url, nil)
		req.Header.Set("Mcp-Session-Id", s.id)
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		resp, err := s.hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	if resp := get(""); resp.StatusCode != http.StatusNotAcceptable {
		t.Fatalf("GET without Accept: %d, want 406", resp.StatusCode)
	}
	stream := get("text/event-stream")
	if stream.StatusCode != 200 || stream.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("GET: %d %v", stream.StatusCode, stream.Header)
	}
	// A notification of the upstream reaches the GET stream.
	resp = s.post(rpcRequest("3", "tools/call", `{"name":"log","arguments":{"message":"hello over GET"}}`))
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(b, []byte(`"id":3`)) {
		t.Fatalf("log call: %s", b)
	}
	br := bufio.NewReader(stream.Body)
	var got string
	_ = sse.ReadEvents(br, func(id, typ string, data []byte) bool {
		got = string(data)
		return false
	})
	if !strings.Contains(got, "hello over GET") || !strings.Contains(got, `"method":"notifications/message"`) {
		t.Fatalf("GET stream event: %q", got)
	}
	stream.Body.Close()

	// DELETE ends the session; its id is unknown afterwards.
	req, _ := http.NewRequest(http.MethodDelete, s.url, nil)
	req.Header.Set("Mcp-Session-Id", s.id)
	dresp, err := s.hc.Do(req)
	if err != nil || dresp.StatusCode != 200 {
		t.Fatalf("DELETE: %v %v", respStatus(dresp), err)
	}
	resp = s.post(rpcRequest("4", "tools/list", ""))
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("after DELETE: %d, want 404", resp.StatusCode)
	}
	if code := p.stop(syscall.SIGINT); code != 128+int(syscall.SIGINT) {
		t.Errorf("exit code %d", code)
	}
}

// TestHTTPGoSDKClientGhostWrite runs the go-sdk's Streamable HTTP client
// through the proxy (tool fault layer, F1): the agent re-sends the write
// after the injected timeout, and the report's executions equal the
// upstream's own counts.
func TestHTTPGoSDKClientGhostWrite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--scenario", "F1", "--audit-tools", "off")
	ctx, cancel := context.WithTimeout(context.Background(), sessionWait)
	defer cancel()
	var progress, logs int
	client := mcp.NewClient(&mcp.Implementation{Name: "go-sdk-agent", Version: "1"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(context.Context, *mcp.ProgressNotificationClientRequest) { progress++ },
		//lint:ignore SA1019 the logging notifications are what the transparency check relays
		LoggingMessageHandler: func(context.Context, *mcp.LoggingMessageRequest) { logs++ },
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"answer": "yes: " + req.Params.Message}}, nil
		},
	})
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: p.url, MaxRetries: -1},
		&mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, p.stderr.String())
	}
	args := map[string]any{"room": "12", "date": "2026-11-03"}
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: args})
	if err != nil || !res.IsError {
		t.Fatalf("first call: want the injected timeout, got %+v %v", res, err)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "create_booking", Arguments: args})
	if err != nil || res.IsError {
		t.Fatalf("second call: %+v %v", res, err)
	}
	// Transparency: progress with the agent's token, and a server→client
	// request (elicitation) answered by the client.
	pres, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "progress", Arguments: map[string]any{"steps": 3},
		Meta: mcp.Meta{"progressToken": "tok-1"}})
	if err != nil || pres.IsError {
		t.Fatalf("progress: %+v %v", pres, err)
	}
	ares, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "ask_client", Arguments: map[string]any{
		"method": "elicitation/create",
		"params": map[string]any{"message": "proceed?", "requestedSchema": map[string]any{"type": "object", "properties": map[string]any{"answer": map[string]any{"type": "string"}}}},
	}})
	if err != nil || ares.IsError {
		t.Fatalf("ask_client: %+v %v", ares, err)
	}
	if b, _ := json.Marshal(ares); !bytes.Contains(b, []byte("yes: proceed?")) {
		t.Errorf("elicitation answer did not come back: %s", b)
	}
	if progress != 3 {
		t.Errorf("progress notifications: %d, want 3", progress)
	}
	if err := cs.Close(); err != nil {
		t.Logf("close: %v", err)
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d", code)
	}
	r := p.readReport()
	p.checkExecutions(r)
	if got := p.upstreamExecutions()["create_booking"]; got != 2 {
		t.Errorf("upstream executed create_booking %d times, want 2", got)
	}
	if r.Verdict != "FAIL" || len(r.Report.Violations) == 0 || r.Report.Violations[0].Type != "DUPLICATE_EXECUTION" {
		t.Errorf("report: verdict %s violations %+v", r.Verdict, r.Report.Violations)
	}
}

// TestHTTPExitWhenIdle: with --exit-when-idle and no session the proxy
// exits 0 and finishes the report.
func TestHTTPExitWhenIdle(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	p := startHTTPProxy(t, "--exit-when-idle", "100ms")
	if code := p.waitExit(); code != 0 {
		t.Fatalf("exit code %d, want 0; stderr:\n%s", code, p.stderr.String())
	}
	r := p.readReport()
	if r.Status != "finished" || r.Verdict != "NOT_TESTED" {
		t.Errorf("report status %q verdict %q", r.Status, r.Verdict)
	}
	if _, err := os.Stat(p.counts); !os.IsNotExist(err) {
		t.Errorf("an upstream ran without a session")
	}
}

// TestHTTPTypeScriptClient runs the TypeScript SDK's Streamable HTTP
// client through the proxy: F1 at the tool layer (the ghost write counted
// as the upstream counted it), progress and an elicitation passing; and F2
// at the HTTP layer (a real 429: the client throws, nothing executes).
func TestHTTPTypeScriptClient(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Run("F1 tool layer", func(t *testing.T) {
		p := startHTTPProxy(t, "--scenario", "F1", "--audit-tools", "off")
		res := tsHTTPClient(t, p.url, `{"calls":[
			{"name":"create_booking","arguments":{"room":"7"}},
			{"name":"create_booking","arguments":{"room":"7"}},
			{"name":"progress","arguments":{"steps":2},"progress":true},
			{"name":"ask_client","arguments":{"method":"elicitation/create","params":{"message":"go?","requestedSchema":{"type":"object","properties":{"answer":{"type":"string"}}}}}}]}`)
		if res["error"] != nil {
			t.Fatalf("client error: %v\n%s", res["error"], p.stderr.String())
		}
		b, _ := json.Marshal(res)
		if res["progress"] != float64(2) || res["elicitations"] != float64(1) || !bytes.Contains(b, []byte("ts: go?")) {
			t.Errorf("transparency: %s", b)
		}
		if code := p.stop(syscall.SIGTERM); code != 143 {
			t.Errorf("exit code %d", code)
		}
		r := p.readReport()
		p.checkExecutions(r)
		if got := p.upstreamExecutions()["create_booking"]; got != 2 || r.Verdict != "FAIL" {
			t.Errorf("upstream executed create_booking %d times (want 2), verdict %s", got, r.Verdict)
		}
	})
	t.Run("F2 http layer", func(t *testing.T) {
		p := startHTTPProxy(t, "--scenario", "F2", "--audit-tools", "off", "--fault-layer", "http", "--retry-after", "5")
		res := tsHTTPClient(t, p.url, `{"calls":[{"name":"create_booking","arguments":{"room":"7"}}]}`)
		if e, _ := res["error"].(string); !strings.Contains(e, "Too Many Requests") {
			t.Errorf("the client should see the 429: %v", res)
		}
		if code := p.stop(syscall.SIGTERM); code != 143 {
			t.Errorf("exit code %d", code)
		}
		r := p.readReport()
		p.checkExecutions(r)
		if got := p.upstreamExecutions()["create_booking"]; got != 0 {
			t.Errorf("upstream executed create_booking %d times, want 0", got)
		}
	})
}

// TestListenRemoteRefusedE2E: the binary refuses a non-loopback address
// without --listen-allow-remote: one stderr line, nothing on stdout, exit
// 2, nothing started.
func TestListenRemoteRefusedE2E(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	cmd := exec.Command(built(t, "agent-harness"), "proxy", "--listen", "0.0.0.0:0", "--", "/bin/false")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if cmd.ProcessState.ExitCode() != 2 || stdout.Len() != 0 || strings.Count(stderr.String(), "\n") != 1 ||
		!strings.Contains(stderr.String(), "not a loopback address") {
		t.Fatalf("exit %d (%v), stdout %q, stderr %q", cmd.ProcessState.ExitCode(), err, stdout.String(), stderr.String())
	}
}
