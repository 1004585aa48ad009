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
	if os.Getenv(upstreamEnv) == "1" {
		f := &fakeUpstream{tools: testTools, in: os.Stdin, out: os.Stdout}
		f.serve()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestRelayUpstreamProcess runs the relay over OS pipes in front of a real
// upstream process (this test binary), with ordinary and with raw I/O:
// messages larger than a pipe holds go both ways, so writes and reads wait
// in the netpoller on every side.
func TestRelayUpstreamProcess(t *testing.T) {
	for _, raw := range []bool{false, true} {
		name := "ordinary I/O"
		if raw {
			name = "raw I/O"
		}
		t.Run(name, func(t *testing.T) {
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
					Command:   os.Args[0],
					Args:      []string{"-test.run=^$"},
					Env:       []string{upstreamEnv + "=1"},
					Stdin:     relayIn,
					Stdout:    relayOut,
					Stderr:    lockedWriter{mu: &mu, w: stderr},
					RawIO:     raw,
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
		})
	}
}
