package main

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// TestTraceHeaderTransport (issue 17, §17.9): the trace's header records
// the real transports (it was always empty, so a re-judged HTTP run said
// stdio), and a re-judged report says them.
func TestTraceHeaderTransport(t *testing.T) {
	for _, tc := range []struct {
		name string
		http httpOptions
		want report.Transport
	}{
		{"stdio", httpOptions{}, report.Transport{Agent: "stdio", Upstream: "stdio"}},
		{"listen", httpOptions{Listen: "127.0.0.1:0"}, report.Transport{Agent: "http", Upstream: "stdio"}},
		{"upstream url", httpOptions{UpstreamURL: "http://127.0.0.1:9/mcp"}, report.Transport{Agent: "stdio", Upstream: "http"}},
		{"both", httpOptions{Listen: "127.0.0.1:0", UpstreamURL: "http://127.0.0.1:9/mcp"}, report.Transport{Agent: "http", Upstream: "http"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := proxyOptions{TraceFile: filepath.Join(t.TempDir(), "run.trace"), HTTP: tc.http}
			c := proxyConfig(o)
			w, err := harness.OpenTrace(c, c.TraceSettings("F1", "deterministic", nil), time.Unix(1000, 0))
			if err != nil {
				t.Fatal(err)
			}
			w.Close()
			f, err := os.Open(o.TraceFile)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			tr, err := trace.Read(f)
			if err != nil {
				t.Fatal(err)
			}
			if tr.Header.Transport != tc.want {
				t.Errorf("header transport %+v, want %+v", tr.Header.Transport, tc.want)
			}
			_, meta := harness.Rejudge(tr, trace.Options{Settings: tr.Header.Settings}, nil)
			if meta.Transport != tc.want {
				t.Errorf("re-judged transport %+v, want %+v", meta.Transport, tc.want)
			}
		})
	}
}
