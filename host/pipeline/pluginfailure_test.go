package pipeline

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/cuonztech/agent-harness/builtin/classify"
	"github.com/cuonztech/agent-harness/builtin/judge"
	"github.com/cuonztech/agent-harness/host/relay"
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
// plugin failure synchronously, as the plugin host does when an
// equivalence plugin is disabled inside judge.Apply.
type reentrantJudge struct {
	fakeJudge
	p *Pipeline
}

func (j *reentrantJudge) Apply(ev judge.Event) {
	j.fakeJudge.Apply(ev)
	if ev.Kind == judge.EventCall {
		j.p.PluginFailed("dates", "disabled after 5 consecutive failures")
	}
}

func pluginEvents(evs []judge.Event) []string {
	var out []string
	for _, ev := range evs {
		if ev.Kind == judge.EventPluginFailure {
			out = append(out, ev.Plugin+": "+ev.Detail)
		}
	}
	return out
}

func TestPluginFailed(t *testing.T) {
	tests := []struct {
		name string
		run  func(t *testing.T, h *harness)
		// want: the events (evString) in order; wantFail: the plugin
		// failures recorded.
		want     []string
		wantFail []string
	}{
		{
			name: "before the session end",
			run: func(t *testing.T, h *harness) {
				h.p.PluginFailed("verbs", "classify t: deadline of 100ms exceeded")
			},
			want:     []string{"plugin-failure#0", "end#0"},
			wantFail: []string{"verbs: classify t: deadline of 100ms exceeded"},
		},
		{
			name: "applied before the next call",
			run: func(t *testing.T, h *harness) {
				h.p.PluginFailed("faultpack", "fault slow_write create_booking: plugin error: boom")
				u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
				if _, err := h.call(t, 1, "create_booking", classify.Write, u); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"plugin-failure#0", "call#1 create_booking write", "forwarded#1",
				"answer#1 executed", "end#0"},
			wantFail: []string{"faultpack: fault slow_write create_booking: plugin error: boom"},
		},
		{
			name: "after the session end: dropped",
			run: func(t *testing.T, h *harness) {
				if err := h.p.OnSessionEnd(); err != nil {
					t.Fatal(err)
				}
				h.p.PluginFailed("verbs", "late")
			},
			want: []string{"end#0"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, nil, nil)
			if err := h.p.Start(); err != nil {
				t.Fatal(err)
			}
			tt.run(t, h)
			if err := h.p.OnSessionEnd(); err != nil {
				t.Fatal(err)
			}
			evs := h.judge.list()
			var got []string
			for _, ev := range evs {
				got = append(got, evString(ev))
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("events %q, want %q", got, tt.want)
			}
			if got := pluginEvents(evs); !slices.Equal(got, tt.wantFail) {
				t.Errorf("plugin failures %q, want %q", got, tt.wantFail)
			}
			if last := h.report.last(); last.Status != StatusFinished || !slices.Equal(last.Events, got) {
				t.Errorf("final report %+v, want finished with %q", last, got)
			}
		})
	}
}

// TestPluginFailedWritesReport: a failure outside any call still reaches
// the report file, without a later event.
func TestPluginFailedWritesReport(t *testing.T) {
	rep := &signalReport{wrote: make(chan fileSummary, 16)}
	h := newHarness(t, nil, func(o *Options) { o.Report = rep })
	if err := h.p.Start(); err != nil {
		t.Fatal(err)
	}
	<-rep.wrote // the startup report
	h.p.PluginFailed("verbs", "classify check_in_guest: trap")
	got := <-rep.wrote
	if !slices.Equal(got.Events, []string{"plugin-failure#0"}) {
		t.Errorf("report events %q, want the plugin failure", got.Events)
	}
}

// TestPluginFailedInsideJudge: a failure reported while the judge applies
// another event (the equivalence plugin disabled inside judge.Apply) does
// not deadlock and is recorded after that event.
func TestPluginFailedInsideJudge(t *testing.T) {
	j := &reentrantJudge{}
	h := newHarness(t, nil, func(o *Options) { o.Judge = j })
	j.p = h.p
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	if _, err := h.call(t, 1, "create_booking", classify.Write, u); err != nil {
		t.Fatal(err)
	}
	if err := h.p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	evs := j.list()
	var got []string
	for _, ev := range evs {
		got = append(got, evString(ev))
	}
	if len(got) != 5 || got[0] != "call#1 create_booking write" || got[4] != "end#0" ||
		!slices.Contains(got, "plugin-failure#0") {
		t.Errorf("events %q, want the call, the plugin failure after it, and the end", got)
	}
}

// TestPluginFailedConcurrent: failures reported from many goroutines while
// calls run are all recorded once (run with -race).
func TestPluginFailedConcurrent(t *testing.T) {
	h := newHarness(t, nil, nil)
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(2)
		go func() {
			defer wg.Done()
			h.p.PluginFailed("dates", fmt.Sprint("failure ", i))
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
	evs := h.judge.list()
	if got := len(pluginEvents(evs)); got != n {
		t.Errorf("%d plugin failures recorded, want %d", got, n)
	}
	if last := evs[len(evs)-1]; last.Kind != judge.EventEnd {
		t.Errorf("last event %s, want the end", last.Kind)
	}
}

// TestPluginDisabledCountsFailedCalls: the plugin host reports each failed
// call and then, once, the disabling ("disabled after N consecutive
// failures"); the report counts the failed calls and shows the disabling
// as the plugin's status.
func TestPluginDisabledCountsFailedCalls(t *testing.T) {
	rep := &bytesReport{}
	p := New(Options{
		Judge:  judge.New(judge.Config{}),
		Report: rep, Clock: newFakeClock(true),
		Fatal: func(err error) { t.Fatal(err) },
	})
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
		p.PluginFailed("verbs", "classify t: deadline of 100ms exceeded")
	}
	p.PluginFailed("verbs", "disabled after 3 consecutive failures")
	if err := p.OnSessionEnd(); err != nil {
		t.Fatal(err)
	}
	var file struct {
		Report struct {
			VerdictReason  string                `json:"verdictReason"`
			PluginFailures []judge.PluginFailure `json:"pluginFailures"`
		} `json:"report"`
	}
	if err := json.Unmarshal(rep.files[len(rep.files)-1], &file); err != nil {
		t.Fatal(err)
	}
	want := []judge.PluginFailure{{Plugin: "verbs", Status: "disabled", Failures: 3, Detail: "classify t: deadline of 100ms exceeded"}}
	if !slices.Equal(file.Report.PluginFailures, want) {
		t.Errorf("pluginFailures %+v, want %+v", file.Report.PluginFailures, want)
	}
	if r := file.Report.VerdictReason; !strings.Contains(r, `Plugin "verbs" failed (classify t: deadline of 100ms exceeded) and was disabled`) {
		t.Errorf("verdictReason %q", r)
	}
}
