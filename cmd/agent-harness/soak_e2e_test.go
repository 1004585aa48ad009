//go:build !windows

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"sort"
	"strings"
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
	p := scnStart(t, flags...)
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

	var rep struct {
		Status string `json:"status"`
		Report struct {
			Operations []struct {
				Tool       string          `json:"tool"`
				Arguments  json.RawMessage `json:"arguments"`
				Executions int             `json:"executions"`
			} `json:"operations"`
		} `json:"report"`
	}
	raw, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("report file: %v\n%s", err, raw)
	}
	if rep.Status != "finished" {
		t.Errorf("report status %q, want finished", rep.Status)
	}
	got := map[string]int{}
	for _, op := range rep.Report.Operations {
		if op.Executions > 0 {
			got[op.Tool+" "+soakCanonical(t, op.Arguments)] += op.Executions
		}
	}
	want := map[string]int{}
	if b, err := os.ReadFile(p.counts); err == nil {
		var c struct {
			StructuredContent struct {
				Counts []struct {
					Tool      string          `json:"tool"`
					Arguments json.RawMessage `json:"arguments"`
					Count     int             `json:"count"`
				} `json:"counts"`
			} `json:"structuredContent"`
		}
		if err := json.Unmarshal(b, &c); err != nil {
			t.Fatalf("counts file: %v", err)
		}
		for _, e := range c.StructuredContent.Counts {
			if e.Tool == "book_room" {
				want[e.Tool+" "+soakCanonical(t, e.Arguments)] += e.Count
			}
		}
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
	if a, b := soakDump(got), soakDump(want); a != b {
		t.Errorf("executions by operation differ (SIGTERM before call %d)\n report: %s\nupstream: %s\nstderr:\n%s", stopAt+1, a, b, p.stderr)
	}
}

// soakCanonical re-encodes a JSON object with sorted keys.
func soakCanonical(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		t.Fatalf("arguments %s: %v", raw, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func soakDump(m map[string]int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var sb strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&sb, "%s=%d; ", k, m[k])
	}
	return sb.String()
}
