package relay

import (
	"bufio"
	"context"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"
)

// upstreamEnv makes the test binary serve as the fake upstream on stdio.
const upstreamEnv = "RELAY_TEST_UPSTREAM"

func TestMain(m *testing.M) {
	if os.Getenv(upstreamEnv) == "crash" {
		crashingUpstream()
	}
	if os.Getenv(upstreamEnv) == "1" {
		f := &fakeUpstream{tools: testTools, in: os.Stdin, out: os.Stdout}
		f.serve()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRelayUpstreamProcess runs the relay over OS pipes in front of a real
// upstream process (this test binary): messages larger than a pipe holds go
// both ways, so writes and reads wait in the netpoller on every side.
func TestRelayUpstreamProcess(t *testing.T) {
	relayIn, agentW, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	agentR, relayOut, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer agentR.Close()
	var mu sync.Mutex
	stderr := &strings.Builder{}
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), Options{
			Upstream:  CommandUpstream{Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{upstreamEnv + "=1"}},
			Stdin:     relayIn,
			Stdout:    relayOut,
			Stderr:    lockedWriter{mu: &mu, w: stderr},
			StopGrace: 5 * time.Second,
		})
		relayIn.Close()
		relayOut.Close()
	}()
	lines := make(chan string, 16)
	go func() {
		br := bufio.NewReaderSize(agentR, 1<<16)
		for {
			l, err := br.ReadString('\n')
			if err != nil {
				close(lines)
				return
			}
			lines <- l
		}
	}()
	recv := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the relay closed its output")
			}
			return strings.TrimSuffix(l, "\n")
		case <-time.After(30 * time.Second): // a safety net, not a synchronisation
			t.Fatal("no answer within 30 s")
		}
		return ""
	}
	send := func(l string) {
		t.Helper()
		if _, err := io.WriteString(agentW, l+"\n"); err != nil {
			t.Fatal(err)
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	if got := recv(); !strings.Contains(got, `"serverInfo":{"name":"fake"`) {
		t.Fatalf("initialize: %.300s", got)
	}
	blob := strings.Repeat("a", 4<<20)
	send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"create_booking","arguments":{"blob":"` + blob + `"}}}`)
	if got := recv(); got != `{"jsonrpc":"2.0","id":1,"result":{"content":[{"type":"text","text":"called create_booking"}]}}` {
		t.Errorf("4 MB request: %.300s", got)
	}
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"big","arguments":{}}}`)
	if got := recv(); len(got) < 4<<20 || !strings.HasPrefix(got, `{"jsonrpc":"2.0","id":2,"result":{"content":[{"type":"text","text":"bbbb`) {
		t.Errorf("4 MB answer: %d bytes, %.100s", len(got), got)
	}
	agentW.Close()
	if err := <-done; err != nil {
		t.Fatalf("Run: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(stderr.String(), "[agent-harness] Upstream tools (3):") {
		t.Errorf("no startup table:\n%s", stderr.String())
	}
}

// crashingUpstream answers initialize, then exits with status 7 on the first
// tools/call, after a last line on stderr.
func crashingUpstream() {
	br := bufio.NewReader(os.Stdin)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			os.Exit(0)
		}
		switch {
		case strings.Contains(line, `"tools/call"`):
			os.Stderr.WriteString("crashing on purpose\n")
			os.Exit(7)
		case strings.Contains(line, `"tools/list"`):
			id := line[strings.Index(line, `"id":`)+5:]
			id = id[:strings.IndexAny(id, ",}")]
			os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"tools":[{"name":"get_booking","inputSchema":{"type":"object"}}]}}` + "\n")
		case strings.Contains(line, `"initialize"`):
			id := line[strings.Index(line, `"id":`)+5:]
			id = id[:strings.IndexAny(id, ",}")]
			os.Stdout.WriteString(`{"jsonrpc":"2.0","id":` + id + `,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"crash","version":"1"}}}` + "\n")
		}
	}
}

// TestRelayCrashReportedWhenStopComesFirst: the agent's EOF can make the
// proxy stop the upstream before the exit watcher has seen the crashed
// upstream reaped (a loaded machine). The crash is still reported, with the
// stderr tail, before Run returns.
func TestRelayCrashReportedWhenStopComesFirst(t *testing.T) {
	testHookWatchExit = func(s *session) { <-s.proc.Stopping() }
	defer func() { testHookWatchExit = nil }()
	up := &fakeUpstream{}
	a := startRelay(t, up, func(o *Options) {
		o.Upstream = CommandUpstream{Command: os.Args[0], Args: []string{"-test.run=^$"}, Env: []string{upstreamEnv + "=crash"}}
		o.StopGrace = 5 * time.Second
		o.CallTimeout = time.Minute
	})
	a.initialize()
	a.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_booking","arguments":{}}}`)
	if got := a.recv(); !strings.Contains(got, "UPSTREAM_UNAVAILABLE") {
		t.Fatalf("call in flight: %s", got)
	}
	if err := a.end(); err != nil {
		t.Fatalf("Run: %v", err)
	}
	for _, w := range []string{
		"[agent-harness] the upstream MCP server exited unexpectedly (exit status 7); later tool calls get UPSTREAM_UNAVAILABLE\n",
		"[agent-harness]   | crashing on purpose\n",
	} {
		if !strings.Contains(a.stderr.String(), w) {
			t.Errorf("stderr lacks %q; stderr:\n%s", w, a.stderr.String())
		}
	}
}
