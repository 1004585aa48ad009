package pipeline

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/report"
)

// spyTrace records the trace lines and, with each, how many report writes
// and judge events there were at that moment.
type spyTrace struct {
	mu      sync.Mutex
	h       *harness
	lines   []string
	fail    bool
	results []string
}

func (s *spyTrace) Record(ev judge.Event) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("no space left on device")
	}
	s.lines = append(s.lines, evString(ev))
	if ev.Result != nil {
		s.results = append(s.results, string(ev.Result))
	}
	return nil
}

func (s *spyTrace) PluginFailure(_ time.Time, plugin, detail string, disabled bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fail {
		return errors.New("no space left on device")
	}
	line := "plugin-failure " + plugin + ": " + detail
	if disabled {
		line += " [disabled]"
	}
	s.lines = append(s.lines, line)
	return nil
}

func (s *spyTrace) get() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.lines)
}

func (s *spyTrace) Path() string { return "out/run.trace" }

// TestTraceBeforeJudgeAndReport: every event reaches the trace before the
// judge sees it, with the raw upstream result; the call's lines are in
// the trace before it is forwarded.
func TestTraceBeforeJudgeAndReport(t *testing.T) {
	st := &spyTrace{}
	h := newHarness(t, fault.NewGhostWrite(), func(o *Options) { o.Trace = st })
	st.h = h
	var linesAtForward int
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	c := &relay.ToolCall{ID: 1, Tool: "create_booking", Class: classify.Write, Arguments: json.RawMessage(`{"room":12}`),
		Params: json.RawMessage(`{"name":"create_booking","arguments":{"room":12}}`)}
	if _, err := h.p.HandleCall(t.Context(), c, func(ctx2 context.Context) (relay.Response, error) {
		st.mu.Lock()
		linesAtForward = len(st.lines)
		st.mu.Unlock()
		return u.forward(ctx2)
	}); err != nil {
		t.Fatal(err)
	}
	h.p.OnSessionEnd()
	want := strings.Join(events(h.judge), "|")
	if got := strings.Join(st.lines, "|"); got != want {
		t.Errorf("trace %s\njudge %s", got, want)
	}
	if linesAtForward != 2 {
		t.Errorf("%d lines when forwarded, want call and forwarded", linesAtForward)
	}
	if len(st.results) != 1 || st.results[0] != okResult {
		t.Errorf("results %q, want the upstream's", st.results)
	}
}

// TestTraceFailureStops: a trace that cannot be written is one stderr line
// and Fatal, before the call is forwarded.
func TestTraceFailureStops(t *testing.T) {
	st := &spyTrace{fail: true}
	h := newHarness(t, nil, func(o *Options) { o.Trace = st })
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	h.call(t, 1, "create_booking", classify.Write, u)
	if u.calls != 0 || len(h.fatal) != 1 || strings.Count(h.stderr.String(), "\n") != 1 ||
		!strings.Contains(h.stderr.String(), "cannot write trace file out/run.trace: no space left on device") {
		t.Errorf("forwarded %d fatal %v stderr %q", u.calls, h.fatal, h.stderr)
	}
}

// TestReportInterval: within the interval events do not rewrite the
// report file; the session end does.
func TestReportInterval(t *testing.T) {
	h := newHarness(t, nil, func(o *Options) { o.Trace = &spyTrace{}; o.ReportInterval = time.Hour })
	if err := h.p.Start(); err != nil {
		t.Fatal(err)
	}
	u := &upstream{h: h, resp: relay.Response{Result: json.RawMessage(okResult)}}
	for i := range 5 {
		h.call(t, int64(i+1), "create_booking", classify.Write, u)
	}
	if n := h.report.count(); n != 1 {
		t.Errorf("%d report writes within the interval, want 1 (the start)", n)
	}
	h.p.OnSessionEnd()
	if n, last := h.report.count(), h.report.last(); n != 2 || last.Status != report.StatusFinished {
		t.Errorf("%d writes, last %+v; want the final write", n, last)
	}
}
