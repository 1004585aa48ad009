package e2e

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"testing"
	"time"
)

// BenchmarkHTTPProxyLatency measures one small tools/call (a read, no
// scenario) HTTP↔HTTP through the proxy and through net/http/httputil's
// ReverseProxy in front of the same go-sdk upstream, interleaved in one
// run, and reports the medians and their ratio (behaviour §14.2: the target is
// proxy ≤ 1.5× ReverseProxy).
//
//	go test -run '^$' -bench HTTPProxyLatency -benchtime 2000x ./internal/e2e
func BenchmarkHTTPProxyLatency(b *testing.B) {
	up := startHTTPUpstream(b, "-json").url
	// No report file: the comparison is of the relay's own work (the report
	// file's two writes per call are measured on their own, BENCHMARKS.md).
	p := startHTTPProxyReport(b, false, "--upstream-url", up, "--audit-tools", "off").url
	target, _ := url.Parse(up)
	rp := httptest.NewServer(httputil.NewSingleHostReverseProxy(target))
	defer rp.Close()
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	viaProxy := httpBenchSession(b, hc, p)
	viaRP := httpBenchSession(b, hc, rp.URL+target.Path)
	call := rpcRequest("9", "tools/call", `{"name":"get_booking","arguments":{"room":"1"}}`)
	var dp, dr []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		dp = append(dp, timedPost(b, hc, viaProxy, call))
		dr = append(dr, timedPost(b, hc, viaRP, call))
	}
	b.StopTimer()
	mp, mr := median(dp), median(dr) // µs
	b.ReportMetric(mp, "proxy-µs/call")
	b.ReportMetric(mr, "reverseproxy-µs/call")
	b.ReportMetric(mp/mr, "ratio")
}

type httpBenchTarget struct{ url, session string }

func httpBenchSession(b *testing.B, hc *http.Client, u string) httpBenchTarget {
	req, _ := http.NewRequest(http.MethodPost, u, strings.NewReader(rpcRequest("1", "initialize", initializeParams)))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	t := httpBenchTarget{url: u, session: resp.Header.Get("Mcp-Session-Id")}
	timedPost(b, hc, t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return t
}

func timedPost(b *testing.B, hc *http.Client, t httpBenchTarget, body string) time.Duration {
	start := time.Now()
	req, _ := http.NewRequest(http.MethodPost, t.url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Session-Id", t.session)
	req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	resp, err := hc.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	d := time.Since(start)
	if resp.StatusCode >= 300 || (strings.Contains(body, `"id"`) && !bytes.Contains(got, []byte(`"result"`))) {
		b.Fatalf("%s: %d %s", t.url, resp.StatusCode, got)
	}
	return d
}
