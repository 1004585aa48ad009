package selftest

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/harness"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/refagent"
)

// Options configures Run. The zero value runs nothing: use AllScenarios
// and Runs 1 for the default benchmark.
type Options struct {
	// Scenarios are the scenarios to run, a subset of F1–F5 without
	// duplicates, in the order given.
	Scenarios []string
	// Runs is how often each agent runs each scenario, 1–MaxRuns.
	Runs int
	// Jitter is the largest random delay the backend adds to each call, on
	// the run's fake clock (no wall time), 0–MaxJitter.
	Jitter time.Duration
	// Seed seeds the jitter draws; run i draws from a generator derived from
	// Seed and i, so a result does not depend on scheduling.
	Seed uint64
	// Break is a test hook ("", BreakNoDuplicates or BreakLostGhosts).
	Break string
	// Parallel is how many runs are carried out at once; zero means
	// runtime.GOMAXPROCS(0). Runs are independent: each has its own clock,
	// backend, relay, pipeline and judge.
	Parallel int
}

func (o Options) validate() error {
	if len(o.Scenarios) == 0 {
		return errors.New("no scenario selected")
	}
	seen := map[string]bool{}
	for _, s := range o.Scenarios {
		if !IsScenario(s) || seen[s] {
			return fmt.Errorf("scenario %q is not one of %s or is listed twice", s, fault.ScenarioRange())
		}
		seen[s] = true
	}
	if o.Runs < 1 || o.Runs > MaxRuns {
		return fmt.Errorf("runs %d out of range 1–%d", o.Runs, MaxRuns)
	}
	if o.Jitter < 0 || o.Jitter > MaxJitter {
		return fmt.Errorf("jitter %v out of range 0–%v", o.Jitter, MaxJitter)
	}
	if o.Break != "" && !IsBreak(o.Break) {
		return fmt.Errorf("unknown break hook %q", o.Break)
	}
	return nil
}

// agents are the reference agents, in output order.
var agents = []refagent.Agent{refagent.Careful{}, refagent.Naive{}}

// epoch is where run 0's clock starts; run i starts i days later, so the
// pooled judge sees every run's events in order.
var epoch = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// job is one run: one agent, one scenario, one repetition.
type job struct {
	index    int // global, for the clock and the jitter seed
	agent    refagent.Agent
	scenario string
	run      int // 1-based within the scenario
}

// Run carries out the self-test: every agent runs every selected scenario
// opts.Runs times through the relay and pipeline, and each agent's runs are
// also judged pooled. A run that breaks (not a verdict: the MCP session or
// the relay itself failed) is an error.
func Run(ctx context.Context, opts Options) (*Result, error) {
	if err := opts.validate(); err != nil {
		return nil, fmt.Errorf("self-test options: %w", err)
	}
	var jobs []job
	for _, a := range agents {
		for _, s := range opts.Scenarios {
			for r := 1; r <= opts.Runs; r++ {
				jobs = append(jobs, job{index: len(jobs), agent: a, scenario: s, run: r})
			}
		}
	}
	runs, err := runAll(ctx, opts, jobs)
	if err != nil {
		return nil, err
	}
	res := &Result{opts: opts}
	for _, a := range agents {
		ar := &AgentResult{Name: a.Name(), Description: a.Description(),
			Expected: expectedPooled(a.Name(), opts.Scenarios)}
		for _, r := range runs {
			if r.Agent == a.Name() {
				ar.Runs = append(ar.Runs, r)
			}
		}
		ar.pool()
		res.Agents = append(res.Agents, ar)
	}
	return res, nil
}

// runAll carries out jobs on opts.Parallel workers and returns their
// results in job order.
func runAll(ctx context.Context, opts Options, jobs []job) ([]*RunResult, error) {
	workers := opts.Parallel
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out := make([]*RunResult, len(jobs))
	next := make(chan int)
	var (
		wg       sync.WaitGroup
		errOnce  sync.Once
		firstErr error
	)
	for range min(workers, len(jobs)) {
		wg.Go(func() {
			for i := range next {
				r, err := runOne(ctx, opts, jobs[i])
				if err != nil {
					errOnce.Do(func() { firstErr = err; cancel() })
					continue
				}
				out[i] = r
			}
		})
	}
feed:
	for i := range jobs {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if firstErr != nil {
		return nil, firstErr
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// jitterSeed derives run i's jitter seed from the user's seed.
func jitterSeed(seed uint64, i int) uint64 {
	return seed ^ (uint64(i)+1)*0x9e3779b97f4a7c15
}

// task returns the booking the agent makes in job j. Every run books a
// different guest so that the pooled judge sees distinct operations.
func (j job) task(clock *Clock) refagent.Task {
	return refagent.Task{
		Write: WriteTool,
		Read:  ReadTool,
		Guest: fmt.Sprintf("Guest %s-%04d", j.scenario, j.run),
		Date:  "2026-11-03",
		Room:  "double",
		Key:   fmt.Sprintf("%s-%s-%04d", strings.ToLower(j.agent.Name()), strings.ToLower(j.scenario), j.run),
		Wait:  clock.Advance,
	}
}

// runOne carries out one run and judges it.
func runOne(ctx context.Context, opts Options, j job) (*RunResult, error) {
	clock := NewClock(epoch.Add(time.Duration(j.index) * 24 * time.Hour))
	backend, server := newBackend(clock, opts.Jitter, jitterSeed(opts.Seed, j.index))
	// The fault and the judge as `agent-harness proxy --scenario` composes
	// them (internal/harness).
	cfg := harness.Config{Scenario: j.scenario}
	f, name, _, err := cfg.Fault(harness.Extras{})
	if err != nil {
		return nil, fmt.Errorf("run %s %s #%d: %w", j.agent.Name(), j.scenario, j.run, err)
	}
	jd := judge.New(cfg.JudgeConfig(name, harness.Extras{}, time.Time{}))
	if err := session(ctx, cfg, clock, server, f, feed(jd, opts.Break), func(ctx context.Context, c refagent.Caller) error {
		return j.agent.Book(ctx, c, j.task(clock))
	}); err != nil {
		return nil, fmt.Errorf("run %s %s #%d: %w", j.agent.Name(), j.scenario, j.run, err)
	}
	r := &RunResult{
		Agent: j.agent.Name(), Scenario: j.scenario, Run: j.run,
		Expected:          Expected(j.agent.Name(), j.scenario),
		BackendExecutions: backend.Counts().Bookings,
	}
	r.fill(jd)
	return r, nil
}
