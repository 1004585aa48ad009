//go:build !windows

package e2e

import (
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
)

// soakTrials and soakCalls bound the soak: about a second per trial on a
// loaded 2-core machine under -race.
const (
	soakTrials = 16
	soakCalls  = 40
	soakOps    = 6 // distinct write operations per trial: repeats are common
)

// TestSoakExecutionsMatchUpstream is the reliability soak (RELIABILITY.md):
// per seeded trial, an agent pipelines a mix of writes and reads without
// waiting for answers (the upstream answers them out of order, each
// operation after its own delay), under a random scenario, and the proxy
// gets SIGTERM at a random moment while the agent keeps sending. Whatever
// the interleaving, every execution the upstream counted is in the final
// report, operation by operation, and the report is finished.
func TestSoakExecutionsMatchUpstream(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the soak runs without -short")
	}
	scenarios := [][]string{
		{"--scenario", "F1"}, {"--scenario", "F2", "--retry-after", "1"}, {"--scenario", "F3"},
		{"--scenario", "F4"}, {"--scenario", "F5"}, {"--mode", "chaos", "--error-rate", "0.3", "--seed", "7"}, nil,
	}
	for trial := range soakTrials {
		rng := rand.New(rand.NewPCG(uint64(trial), 0x50a4))
		flags := append([]string{"--audit-tools", "off", "--quiet"}, scenarios[rng.IntN(len(scenarios))]...)
		t.Run(fmt.Sprintf("trial%02d%s", trial, strings.Join(flags[3:], "")), func(t *testing.T) {
			soakTrial(t, rng, flags)
		})
	}
}

func soakTrial(t *testing.T, rng *rand.Rand, flags []string) {
	p := startSession(t, flags...)
	stopAt := 1 + rng.IntN(soakCalls)
	for i := range soakCalls {
		if i == stopAt {
			if err := p.cmd.Process.Signal(syscall.SIGTERM); err != nil {
				t.Fatal(err)
			}
		}
		var line string
		p.nextID++
		if rng.IntN(5) == 0 {
			line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"get_booking","arguments":{"id":"b1"}}}`, p.nextID)
		} else {
			// Each operation has its own delay, so answers come out of order.
			op := rng.IntN(soakOps)
			line = fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"book_room","arguments":{"room":"r%d","sleep_ms":%d}}}`,
				p.nextID, op, (op*17)%50)
		}
		// After the proxy exited the pipe is closed: later writes fail, as
		// they would for a real agent.
		_, _ = io.WriteString(p.stdin, line+"\n")
	}
	_ = p.stdin.Close()
	if code := p.waitExit(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, 128+int(syscall.SIGTERM), p.stderr)
	}

	soakCompare(t, p, fmt.Sprintf("SIGTERM before call %d", stopAt+1))
}

// soakSessions bounds the sessions of a --listen soak trial.
const soakSessions = 4

// TestSoakSharedSessionsMatchUpstream is the soak over --listen (issue 17,
// behaviour §8.3): per seeded trial, 2 to soakSessions MCP sessions share
// one stdio upstream and each sends a seeded mix of writes and reads from
// two concurrent clients (answers come out of order, each operation after
// its own delay), under a random scenario; the proxy gets SIGTERM once a
// seeded number of calls has been sent, while the sessions keep sending.
// Every execution the one upstream process counted is in the final
// report, operation by operation, and the report is finished.
func TestSoakSharedSessionsMatchUpstream(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("the soak runs without -short")
	}
	scenarios := [][]string{
		{"--scenario", "F1"}, {"--scenario", "F2", "--retry-after", "1"}, {"--scenario", "F3"},
		{"--scenario", "F4"}, {"--scenario", "F5"}, {"--mode", "chaos", "--error-rate", "0.3", "--seed", "7"}, nil,
	}
	for trial := range soakTrials / 2 {
		rng := rand.New(rand.NewPCG(uint64(trial), 0x5e55))
		flags := append([]string{"--audit-tools", "off", "--quiet"}, scenarios[rng.IntN(len(scenarios))]...)
		sessions := 2 + rng.IntN(soakSessions-1)
		t.Run(fmt.Sprintf("trial%02d-%dsessions%s", trial, sessions, strings.Join(flags[3:], "")), func(t *testing.T) {
			soakSharedTrial(t, rng, flags, sessions)
		})
	}
}

func soakSharedTrial(t *testing.T, rng *rand.Rand, flags []string, sessions int) {
	p := startHTTPProxy(t, flags...)
	// Every call of every session is drawn before any is sent: the trial
	// is the seed's, whatever the interleaving.
	var plans [][]string
	for range sessions {
		var plan []string
		for i := range soakCalls / 2 {
			id := i + 2
			if rng.IntN(5) == 0 {
				plan = append(plan, rpcRequest(fmt.Sprint(id), "tools/call", `{"name":"get_booking","arguments":{"id":"b1"}}`))
				continue
			}
			op := rng.IntN(soakOps)
			plan = append(plan, rpcRequest(fmt.Sprint(id), "tools/call",
				fmt.Sprintf(`{"name":"book_room","arguments":{"room":"r%d","sleep_ms":%d}}`, op, (op*17)%50)))
		}
		plans = append(plans, plan)
	}
	total := sessions * (soakCalls / 2)
	stopAt := int64(1 + rng.IntN(total))

	ids := make([]string, sessions)
	for i := range ids {
		s := newRawSession(t, p.url)
		s.initialize()
		ids[i] = s.id
	}
	var sent atomic.Int64
	var wg sync.WaitGroup
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: sessionWait}
	for si, plan := range plans {
		for w := range 2 { // two clients per session: calls overlap within a session too
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := w; i < len(plan); i += 2 {
					if sent.Add(1) == stopAt {
						_ = p.cmd.Process.Signal(syscall.SIGTERM)
					}
					req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(plan[i]))
					req.Header.Set("Content-Type", "application/json")
					req.Header.Set("Accept", "application/json, text/event-stream")
					req.Header.Set("Mcp-Session-Id", ids[si])
					// After the proxy stopped, requests fail, as they
					// would for a real agent.
					if resp, err := hc.Do(req); err == nil {
						_, _ = io.Copy(io.Discard, resp.Body)
						resp.Body.Close()
					}
				}
			}()
		}
	}
	wg.Wait()
	if sent.Load() < stopAt {
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
	}
	if code := p.waitExit(); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d, want %d; stderr:\n%s", code, 128+int(syscall.SIGTERM), p.stderr)
	}
	soakCompare(t, &p.stdioProxy, fmt.Sprintf("SIGTERM at call %d of %d, %d sessions", stopAt, total, sessions))
}
