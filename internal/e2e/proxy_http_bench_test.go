package e2e

import (
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
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
