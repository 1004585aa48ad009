package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Sizes of BenchmarkSharedUpstreamSessions (SPEC §22).
const (
	sharedBenchSessions = 16
	sharedBenchCalls    = 500
)

// BenchmarkSharedUpstreamSessions measures --listen over one shared stdio
// upstream (behaviour §8.3): first one session making sharedBenchCalls
// sequential small writes, then sharedBenchSessions sessions making as
// many each, all at once, against a fresh proxy. Every write is its own
// operation; after SIGTERM the final report's executions must equal the
// upstream's own counts, operation by operation (the judge is the ground
// truth), or the benchmark fails. Reported: the median latency per call
// with one session and with all sessions, the wall time per call with all
// sessions (their calls overlap, so this is the cost per call the machine
// pays), its ratio to one session's median (the target is ≤ 1.5), the
// proxy's CPU per call in each phase (Linux), and for comparison the same
// 16 sessions with a process each (--upstream-per-session; no ground-truth
// check there: the report's total executions only).
//
//	go test -run '^$' -bench SharedUpstreamSessions -benchtime 1x ./internal/e2e
func BenchmarkSharedUpstreamSessions(b *testing.B) {
	for b.Loop() {
		one, oneCPU, _ := sharedBenchPhase(b, 1, false)
		all, allCPU, wall := sharedBenchPhase(b, sharedBenchSessions, false)
		own, _, ownWall := sharedBenchPhase(b, sharedBenchSessions, true)
		perCall := float64(wall.Microseconds()) / float64(sharedBenchSessions*sharedBenchCalls)
		b.ReportMetric(one, "1session-median-µs/call")
		b.ReportMetric(all, "16sessions-median-µs/call")
		b.ReportMetric(perCall, "16sessions-wall-µs/call")
		b.ReportMetric(perCall/one, "wall-per-call/1session")
		b.ReportMetric(oneCPU, "1session-cpu-µs/call")
		b.ReportMetric(allCPU, "16sessions-cpu-µs/call")
		b.ReportMetric(own, "16processes-median-µs/call")
		b.ReportMetric(float64(ownWall.Microseconds())/float64(sharedBenchSessions*sharedBenchCalls), "16processes-wall-µs/call")
	}
}

// sharedBenchPhase runs n sessions of sharedBenchCalls writes each through
// a new proxy and checks its final report against the upstream's counts;
// it returns the median latency (µs), the proxy's CPU per call (µs) and the
// wall time of the calls.
func sharedBenchPhase(b *testing.B, n int, perSession bool) (med, cpu float64, wall time.Duration) {
	b.Helper()
	_, up := binaries(b)
	// Without -counts-file (rewriting it per execution would cost the
	// upstream O(n) per call): the counts are asked for at the end.
	// --report-interval (with the trace it needs): the report file is not
	// rewritten per call, which costs O(operations) per call (behaviour
	// §5.6) and would make 8000 operations dearer per call than 500 for a
	// reason that is not sharing.
	flags := []string{"--audit-tools", "off", "--quiet", "--report-interval", "1s", "--trace", filepath.Join(b.TempDir(), "trace.jsonl")}
	if perSession {
		flags = append(flags, "--upstream-per-session")
	}
	p := startHTTPProxy(b, append(flags, "--", up)...)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2 * sharedBenchSessions}}
	targets := make([]httpBenchTarget, n)
	for i := range targets {
		targets[i] = httpBenchSession(b, hc, p.url)
	}
	lat := make([][]time.Duration, n)
	errs := make(chan error, n)
	cpu0 := processCPU(p.cmd.Process.Pid)
	start := time.Now()
	var wg sync.WaitGroup
	for s := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range sharedBenchCalls {
				body := rpcRequest(fmt.Sprint(i+2), "tools/call", fmt.Sprintf(`{"name":"book_room","arguments":{"room":"s%d-%d"}}`, s, i))
				d, err := sharedBenchPost(hc, targets[s], body)
				if err != nil {
					errs <- err
					return
				}
				lat[s] = append(lat[s], d)
			}
		}()
	}
	wg.Wait()
	wall = time.Since(start)
	cpuUsed := processCPU(p.cmd.Process.Pid) - cpu0
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	if !perSession {
		sharedBenchTruth(b, p, hc, targets[0])
	}
	if code := p.stop(syscall.SIGTERM); code != 128+int(syscall.SIGTERM) {
		b.Fatalf("exit code %d", code)
	}
	if !perSession {
		soakCompare(b, &p.stdioProxy, fmt.Sprintf("%d sessions", n))
	}
	r := p.readReport()
	if got := r.executions()["book_room"]; got != n*sharedBenchCalls {
		b.Fatalf("report: %d executions of book_room, want %d", got, n*sharedBenchCalls)
	}
	var all []time.Duration
	for _, l := range lat {
		all = append(all, l...)
	}
	return median(all), float64(cpuUsed.Microseconds()) / float64(len(all)), wall
}

// sharedBenchTruth writes the upstream's execution counts (the ground
// truth) where soakCompare reads them, as the counts file would hold them.
func sharedBenchTruth(b *testing.B, p *httpProxy, hc *http.Client, t httpBenchTarget) {
	b.Helper()
	req, _ := http.NewRequest(http.MethodPost, p.url, strings.NewReader(rpcRequest("1000000", "tools/call", `{"name":"get_execution_counts","arguments":{}}`)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", t.session)
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	var counts struct {
		Result json.RawMessage `json:"result"`
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err := json.Unmarshal(raw, &counts); err != nil || counts.Result == nil {
		b.Fatalf("get_execution_counts: %v %.300s", err, raw)
	}
	if err := os.WriteFile(p.counts, counts.Result, 0o644); err != nil {
		b.Fatal(err)
	}
}

// sharedBenchPost is timedPost for a goroutine: it returns the error.
func sharedBenchPost(hc *http.Client, t httpBenchTarget, body string) (time.Duration, error) {
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, t.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", t.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode >= 300 || !bytes.Contains(got, []byte(`"result"`)) {
		return 0, fmt.Errorf("%d %s", resp.StatusCode, got)
	}
	return d, nil
}
