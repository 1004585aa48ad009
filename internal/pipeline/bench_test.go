package pipeline

import (
	"context"
	"encoding/json"
	"strconv"
	"testing"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
)

// discardReport counts bytes instead of writing them.
type discardReport struct{ bytes int }

func (d *discardReport) Write(b []byte) error { d.bytes += len(b); return nil }
func (d *discardReport) Path() string         { return "discard" }

// BenchmarkHandleCall is the pipeline's own cost per forwarded write with
// the real judge, after a session of the given length: events, fault
// decision, and two report-file writes (the file system is left out; see
// internal/reportfile's BenchmarkWrite and cmd/agent-harness's
// BenchmarkReportFileSession). report=none has no report file,
// report=buffer encodes each file into one buffer.
func BenchmarkHandleCall(b *testing.B) {
	for _, tc := range []struct {
		history int
		report  string
	}{{100, "none"}, {100, "buffer"}, {5000, "none"}, {5000, "buffer"}} {
		name := "history=" + strconv.Itoa(tc.history) + "/report=" + tc.report
		history := tc.history
		b.Run(name, func(b *testing.B) {
			rep := &discardReport{}
			opts := Options{
				Judge: judge.New(judge.Config{KeyFields: canon.ParseKeyFields(nil), Scenario: "F1"}),
				Fault: fault.NewGhostWrite(),
				Fatal: func(err error) { b.Fatal(err) },
			}
			if tc.report == "buffer" {
				opts.Report = rep
			}
			p := New(opts)
			result := relay.Response{Result: json.RawMessage(`{"content":[{"type":"text","text":"create_booking done"}]}`)}
			forward := func(context.Context) (relay.Response, error) { return result, nil }
			id := int64(0)
			call := func() {
				id++
				c := &relay.ToolCall{ID: id, Tool: "create_booking", Class: classify.Write, AcceptsKey: true,
					Arguments: json.RawMessage(`{"room":"r` + strconv.FormatInt(id, 10) + `","date":"2026-11-03"}`)}
				if _, err := p.HandleCall(context.Background(), c, forward); err != nil {
					b.Fatal(err)
				}
			}
			for range history {
				call()
			}
			rep.bytes = 0
			for b.Loop() {
				call()
			}
			b.ReportMetric(float64(rep.bytes)/float64(b.N), "report-bytes/call")
		})
	}
}
