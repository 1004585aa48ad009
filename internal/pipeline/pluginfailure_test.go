package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// signalReport is a fakeReport that announces every successful write.
type signalReport struct {
	fakeReport
	wrote chan fileSummary
}

func (r *signalReport) Write(data []byte) error {
	if err := r.fakeReport.Write(data); err != nil {
		return err
	}
	r.wrote <- r.last()
	return nil
}

// reentrantJudge is a fakeJudge whose Apply of a call event reports a
// plugin's disabling synchronously, as the plugin host does when an
// equivalence plugin fails inside judge.Apply.
type reentrantJudge struct {
	fakeJudge
	p *Pipeline
}

func (j *reentrantJudge) Apply(ev judge.Event) {
	j.fakeJudge.Apply(ev)
	if ev.Kind == judge.EventCall {
		j.p.PluginFailed("dates", "disabled after 5 consecutive failures", true)
	}
}

// TestPluginFailed: a plugin failure is a trace line where it happened,
// never a judge event, and nothing after the session end.
func TestPluginFailed(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness)
		// trace: the trace lines in order; the judge sees the same
		// without the plugin-failure lines.
		trace []string
	}{
		{
			name: "before the session end",
			run: func(t *testing.T, h *harness) {
				h.p.PluginFailed("verbs", "classify t: deadline of 100ms exceeded", false)
			},
			trace: []string{"plugin-failure verbs: classify t: deadline of 100ms exceeded", "end#0"},
		},
		{
			name: "before the next call",
			run: func(t *testing.T, h *harness) {
				h.p.PluginFailed("faultpack", "fault slow_write create_booking: plugin error: boom", false)
				u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
				if _, err := h.call(t, 1, "create_booking", classify.Write, u); err != nil {
					t.Fatal(err)
				}
			},
			trace: []string{"plugin-failure faultpack: fault slow_write create_booking: plugin error: boom",
				"call#1 create_booking write", "forwarded#1", "answer#1 executed", "end#0"},
		},
		{
			name: "the disabling",
			run: func(t *testing.T, h *harness) {
				h.p.PluginFailed("verbs", "classify t: trap", false)
				h.p.PluginFailed("verbs", "disabled after 1 consecutive failures", true)
			},
			trace: []string{"plugin-failure verbs: classify t: trap", "plugin-failure verbs: disabled after 1 consecutive failures [disabled]", "end#0"},
		},
		{
			name: "after the session end: dropped",
			run: func(t *testing.T, h *harness) {
				if err := h.p.OnSessionEnd(); err != nil {
					t.Fatal(err)
				}
				h.p.PluginFailed("verbs", "late", false)
			},
			trace: []string{"end#0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := &spyTrace{}
			h := newHarness(t, nil, func(o *Options) { o.Trace = st })
			if err := h.p.Start(); err != nil {
				t.Fatal(err)
			}
			tt.run(t, h)
			if err := h.p.OnSessionEnd(); err != nil {
				t.Fatal(err)
			}
			if got := st.get(); !slices.Equal(got, tt.trace) {
				t.Errorf("trace %q, want %q", got, tt.trace)
			}
			var judged []string
			for _, l := range tt.trace {
				if !strings.HasPrefix(l, "plugin-failure ") {
					judged = append(judged, l)
				}
			}
			if got := events(h.judge); !slices.Equal(got, judged) {
				t.Errorf("judge events %q, want %q", got, judged)
			}
			if last := h.report.last(); last.Status != report.StatusFinished {
				t.Errorf("final report %+v, want finished", last)
			}
		})
	}
}

// TestPluginFailedWritesReport: a failure outside any call still has the
// report file written (the report reads the plugins' status), without a
// later event.
func TestPluginFailedWritesReport(t *testing.T) {
	rep := &signalReport{wrote: make(chan fileSummary, 16)}
	h := newHarness(t, nil, func(o *Options) { o.Report = rep })
	if err := h.p.Start(); err != nil {
		t.Fatal(err)
	}
	<-rep.wrote // the startup report
	h.p.PluginFailed("verbs", "classify check_in_guest: trap", false)
	if got := <-rep.wrote; got.Status != report.StatusStarting {
		t.Errorf("report %+v after the failure, want a rewrite of the starting report", got)
	}
}

// TestPluginFailedInsideJudge: a failure reported while the judge applies
// another event (an equivalence plugin disabled inside judge.Apply) does
// not deadlock and is in the trace after that event's line.
func TestPluginFailedInsideJudge(t *testing.T) {
	j := &reentrantJudge{}
	st := &spyTrace{}
	h := newHarness(t, nil, func(o *Options) { o.Judge = j; o.Trace = st })
	j.p = h.p
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	if _, err := h.call(t, 1, "create_booking", classify.Write, u); err != nil {
		t.Fatal(err)
	}
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	want := []string{"call#1 create_booking write", "plugin-failure dates: disabled after 5 consecutive failures [disabled]",
		"forwarded#1", "answer#1 executed", "end#0"}
	if got := st.get(); !slices.Equal(got, want) {
		t.Errorf("trace %q, want %q", got, want)
	}
}

// TestPluginFailedConcurrent: failures reported from many goroutines while
// calls run are all recorded once (run with -race).
func TestPluginFailedConcurrent(t *testing.T) {
	st := &spyTrace{}
	h := newHarness(t, nil, func(o *Options) { o.Trace = st })
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			h.p.PluginFailed("dates", fmt.Sprint("failure ", i), false)
		}()
		go func() {
			defer wg.Done()
			u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
			c := &relay.ToolCall{ID: int64(i + 1), Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(`{}`)}
			if _, err := h.p.HandleCall(context.Background(), c, u.forward); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	lines := st.get()
	failures := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "plugin-failure dates: failure ") {
			failures++
		}
	}
	if failures != n || lines[len(lines)-1] != "end#0" {
		t.Errorf("%d plugin failures recorded (want %d), last line %q", failures, n, lines[len(lines)-1])
	}
}

// fakeHost is a plugin host's status for one plugin, reported the way the
// plugin host does: first to PluginFailed, then counted.
type fakeHost struct {
	mu sync.Mutex
	st judge.PluginState
	p  *Pipeline
}

func (f *fakeHost) fail(detail string, disabled bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.p.PluginFailed(f.st.Name, detail, disabled)
	switch {
	case disabled:
		f.st.Disabled = true
	default:
		f.st.Failures++
		if f.st.Detail == "" {
			f.st.Detail = detail
		}
	}
}

func (f *fakeHost) status() []judge.PluginState {
	f.mu.Lock()
	defer f.mu.Unlock()
	return []judge.PluginState{f.st}
}

// TestPluginDisabledCountsFailedCalls: the plugin host reports each failed
// call and then, once, the disabling; the report counts the failed calls
// and shows the disabling as the plugin's status.
func TestPluginDisabledCountsFailedCalls(t *testing.T) {
	rep := &bytesReport{}
	host := &fakeHost{st: judge.PluginState{Name: "verbs"}}
	p := New(Options{
		Judge:  judge.New(judge.Config{PluginStatus: host.status}),
		Report: rep, Clock: newFakeClock(true),
		Fatal: func(err error) { t.Fatal(err) },
	})
	host.p = p
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	forward := func(context.Context) (relay.Response, error) {
		return relay.Response{Result: json.RawMessage(okResult)}, nil
	}
	c := &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(`{}`)}
	if _, err := p.HandleCall(context.Background(), c, forward); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		host.fail("classify t: deadline of 100ms exceeded", false)
	}
	host.fail("disabled after 3 consecutive failures", true)
	if err := p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Report struct {
			VerdictReason  string                 `json:"verdictReason"`
			PluginFailures []report.PluginFailure `json:"pluginFailures"`
		} `json:"report"`
	}
	if err := json.Unmarshal(rep.files[len(rep.files)-1], &file); err != nil {
		t.Fatal(err)
	}
	want := []report.PluginFailure{{Plugin: "verbs", Status: "disabled", Failures: 3, Detail: "classify t: deadline of 100ms exceeded"}}
	if !slices.Equal(file.Report.PluginFailures, want) {
		t.Errorf("pluginFailures %+v, want %+v", file.Report.PluginFailures, want)
	}
	if r := file.Report.VerdictReason; !strings.Contains(r, `Plugin "verbs" failed (classify t: deadline of 100ms exceeded) and was disabled`) {
		t.Errorf("verdictReason %q", r)
	}
}
