package demo

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/pipeline"
	"github.com/cuonztech/agent-harness/internal/report"
)

// session is one demo session: a scenario and the pipeline (with its fault
// and judge) the calls go through.
type session struct {
	id         string
	scenario   string // "" = none
	retryAfter time.Duration

	mu    sync.Mutex
	pipe  *pipeline.Pipeline
	judge *judge.Judge
	calls int64
	tools []toolEntry // tools seen, in order of first call
}

// toolEntry is one entry of the report's toolClassification.
type toolEntry struct {
	Name      string   `json:"name"`
	Class     string   `json:"class"`
	Reason    string   `json:"reason"`
	KeyFields []string `json:"keyFields"`
}

// newSession returns a session with a fresh pipeline.
func newSession(id, scenario string, retryAfter time.Duration, clock pipeline.Clock) (*session, error) {
	s := &session{id: id, scenario: scenario, retryAfter: retryAfter}
	if err := s.reset(clock); err != nil {
		return nil, err
	}
	return s, nil
}

// reset replaces the history: a new judge, a re-armed fault, no calls.
func (s *session) reset(clock pipeline.Clock) error {
	// The fault and the judge as internal/harness composes them for the
	// proxy, judged as a demo run.
	cfg := harness.Config{Kind: "demo", Scenario: s.scenario, RetryAfter: int(s.retryAfter / time.Second)}
	f, _, _, err := cfg.Fault(harness.Extras{})
	if err != nil {
		return fmt.Errorf("starting scenario %s: %w", s.scenario, err)
	}
	j := judge.New(cfg.JudgeConfig(s.scenario, harness.Extras{}, time.Time{}))
	p := pipeline.New(pipeline.Options{
		Judge:  j,
		Fault:  f,
		Clock:  clock,
		Stderr: io.Discard,
		Fatal:  func(error) {},

		Transport: report.Transport{Upstream: "in-process"},
	})
	s.mu.Lock()
	s.pipe, s.judge, s.calls, s.tools = p, j, 0, nil
	s.mu.Unlock()
	return nil
}

// nextCall numbers a call and records its tool for the report's
// toolClassification; it returns the pipeline the call goes through.
func (s *session) nextCall(tool string, r classify.Result) (int64, *pipeline.Pipeline) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.calls++
	if !slices.ContainsFunc(s.tools, func(t toolEntry) bool { return t.Name == tool }) {
		kf := []string{}
		if r.Class == classify.Write {
			kf = []string{canon.DefaultKeyField}
		}
		s.tools = append(s.tools, toolEntry{Name: tool, Class: string(r.Class), Reason: r.Reason, KeyFields: kf})
		if list, err := json.Marshal(s.tools); err == nil {
			_ = s.pipe.SetToolClassification(list) // no report file: cannot fail
		}
	}
	return s.calls, s.pipe
}

// current returns the session's pipeline and judge.
func (s *session) current() (*pipeline.Pipeline, *judge.Judge) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pipe, s.judge
}
