package e2e

import (
	"bytes"
	"io"
	"path/filepath"
	"syscall"
	"testing"
)

// TestHTTPCombinationsMatrix: every combination of stdio and Streamable
// HTTP on the agent and upstream side, under F1, F2 and F4, with an agent
// that sends the same write twice. The upstream's own execution count
// equals the report's, and the verdict is FAIL with the scenario's
// violation (behaviour §8: judging is the same over every transport).
func TestHTTPCombinationsMatrix(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	const call = `{"name":"create_booking","arguments":{"room":"7","date":"2026-11-03"}}`
	scenarios := []struct {
		name      string
		flags     []string
		upstream  int    // executions the upstream must count
		violation string // the report's violation
	}{
		{"F1", []string{"--scenario", "F1"}, 2, "DUPLICATE_EXECUTION"},
		{"F2", []string{"--scenario", "F2"}, 1, "RETRY_AFTER_VIOLATED"},
		{"F4", []string{"--scenario", "F4"}, 2, "DUPLICATE_EXECUTION"},
	}
	for _, sc := range scenarios {
		flags := append([]string{"--audit-tools", "off"}, sc.flags...)
		check := func(t *testing.T, report string, upstream int) {
			t.Helper()
			r, b := readUpstreamReport(t, report)
			if got := r.executions("create_booking"); got != upstream || upstream != sc.upstream || r.Verdict != "FAIL" || !bytes.Contains(b, []byte(`"type":"`+sc.violation+`"`)) {
				t.Errorf("report executions %d, upstream %d (want %d), verdict %s, want FAIL %s\n%s", got, upstream, sc.upstream, r.Verdict, sc.violation, b)
			}
		}
		// twiceHTTP sends the write twice over a raw Streamable HTTP session.
		twiceHTTP := func(t *testing.T, url string) {
			s := newRawSession(t, url)
			s.initialize()
			for _, id := range []string{"2", "3"} {
				resp := s.post(rpcRequest(id, "tools/call", call))
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if resp.StatusCode != 200 || !bytes.Contains(b, []byte(`"result"`)) {
					t.Fatalf("call %s: %d %s", id, resp.StatusCode, b)
				}
			}
		}
		t.Run(sc.name+"/stdio agent, stdio upstream", func(t *testing.T) {
			t.Parallel()
			p := startSession(t, flags...)
			p.call("create_booking", `{"room":"7","date":"2026-11-03"}`)
			p.call("create_booking", `{"room":"7","date":"2026-11-03"}`)
			if code := p.finish(); code != 0 {
				t.Fatalf("exit %d", code)
			}
			check(t, p.report, p.upstreamExecutions()["create_booking"])
		})
		t.Run(sc.name+"/http agent, stdio upstream", func(t *testing.T) {
			t.Parallel()
			p := startHTTPProxy(t, flags...)
			twiceHTTP(t, p.url)
			p.stop(syscall.SIGTERM)
			check(t, p.report, p.upstreamExecutions()["create_booking"])
		})
		t.Run(sc.name+"/stdio agent, http upstream", func(t *testing.T) {
			t.Parallel()
			up := startHTTPUpstream(t)
			report := filepath.Join(t.TempDir(), "report.json")
			p := startProxy(t, nil, append([]string{"--upstream-url", up.url, "--report-file", report}, flags...)...)
			p.initialize()
			for _, id := range []string{"2", "3"} {
				if resp := p.request(id, "tools/call", call); !bytes.Contains(resp, []byte(`"result"`)) {
					t.Fatalf("call %s: %s", id, resp)
				}
			}
			p.closeAndWait()
			check(t, report, up.executions(t))
		})
		t.Run(sc.name+"/http agent, http upstream", func(t *testing.T) {
			t.Parallel()
			up := startHTTPUpstream(t)
			p := startHTTPProxy(t, append([]string{"--upstream-url", up.url}, flags...)...)
			twiceHTTP(t, p.url)
			p.stop(syscall.SIGTERM)
			check(t, p.report, up.executions(t))
		})
	}
}
