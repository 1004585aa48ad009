package pipeline

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

// fakeJudge records events; its "file" is a JSON summary of them.
type fakeJudge struct {
	mu     sync.Mutex
	events []judge.Event
}

func (j *fakeJudge) Apply(ev judge.Event) {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.events = append(j.events, ev)
}

// fileSummary is what the fake judge encodes as the report file.
type fileSummary struct {
	Status       string            `json:"status"`
	StartupError string            `json:"startupError,omitempty"`
	Mode         string            `json:"mode"`
	Chaos        *report.ChaosInfo `json:"chaos,omitempty"`
	Tools        json.RawMessage   `json:"toolClassification,omitempty"`
	Events       []string          `json:"events"`
}

func (j *fakeJudge) AppendFile(dst []byte, m report.FileMeta) []byte {
	j.mu.Lock()
	defer j.mu.Unlock()
	s := fileSummary{Status: m.Status, StartupError: m.StartupError, Mode: m.Mode, Chaos: m.Chaos, Tools: m.ToolClassification, Events: []string{}}
	for _, ev := range j.events {
		s.Events = append(s.Events, evString(ev))
	}
	b, _ := json.Marshal(s)
	return append(dst, b...)
}

func (j *fakeJudge) Markdown() string  { return "# report\n" }
func (j *fakeJudge) ScoreText() string { return "## Overall: no score [NOT_TESTED]\n" }
func (j *fakeJudge) Score() report.Score {
	return report.Score{Verdict: report.VerdictNotTested, Honesty: report.NotMeasured}
}
func (j *fakeJudge) Patches() []report.Patch           { return []report.Patch{} }
func (j *fakeJudge) Verdict() (verdict, reason string) { return report.VerdictNotTested, "no calls" }

func (j *fakeJudge) list() []judge.Event {
	j.mu.Lock()
	defer j.mu.Unlock()
	return append([]judge.Event(nil), j.events...)
}

// evString is a compact form of an event for assertions.
func evString(ev judge.Event) string {
	s := fmt.Sprintf("%s#%d", ev.Kind, ev.Call)
	if ev.Kind == judge.EventCall {
		s += " " + ev.Tool + " " + string(ev.Class)
	}
	if ev.Outcome != "" {
		s += " " + string(ev.Outcome)
	}
	if ev.Scenario != "" {
		s += " scenario=" + ev.Scenario
	}
	if ev.Fault != "" {
		s += " fault=" + ev.Fault
	}
	if ev.RetryAfterMs != 0 {
		s += fmt.Sprintf(" retryAfterMs=%d", ev.RetryAfterMs)
	}
	return s
}

// fakeReport keeps every write; with fail set, it fails once failAfter
// writes succeeded.
type fakeReport struct {
	mu        sync.Mutex
	writes    []fileSummary
	fail      bool
	failAfter int
}

var errDiskFull = errors.New("write report.json.1.x.tmp: no space left on device")

func (r *fakeReport) Write(data []byte) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.fail && len(r.writes) >= r.failAfter {
		return errDiskFull
	}
	var s fileSummary
	if err := json.Unmarshal(data, &s); err != nil {
		return err
	}
	r.writes = append(r.writes, s)
	return nil
}

func (r *fakeReport) Path() string { return "out/report.json" }

func (r *fakeReport) last() fileSummary {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.writes) == 0 {
		return fileSummary{}
	}
	return r.writes[len(r.writes)-1]
}

func (r *fakeReport) count() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.writes)
}

// fakeClock advances only through After: with auto set, After(d) moves the
// time by d and fires at once; otherwise the timer fires when the test
// calls fire.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	auto   bool
	waits  []time.Duration
	timers []chan time.Time
	// armed receives each duration a non-auto timer was started with.
	armed chan time.Duration
}

func newFakeClock(auto bool) *fakeClock {
	return &fakeClock{now: time.Date(2026, 11, 3, 10, 0, 0, 0, time.UTC), auto: auto, armed: make(chan time.Duration, 16)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	ch := make(chan time.Time, 1)
	c.waits = append(c.waits, d)
	if c.auto {
		c.now = c.now.Add(d)
		ch <- c.now
	} else {
		c.timers = append(c.timers, ch)
		c.armed <- d
	}
	return ch
}

// fire fires every pending timer.
func (c *fakeClock) fire() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, ch := range c.timers {
		ch <- c.now
	}
	c.timers = nil
}

// spyFault returns a fixed action and records the calls it saw.
type spyFault struct {
	mu      sync.Mutex
	action  fault.Action
	seen    []int64
	settled []bool
}

func (f *spyFault) Name() string { return "spy" }
func (f *spyFault) Decide(c fault.Call) fault.Action {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.seen = append(f.seen, c.ID)
	return f.action
}
func (f *spyFault) Settle(c fault.Call, a fault.Action, executed bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.settled = append(f.settled, executed)
}
