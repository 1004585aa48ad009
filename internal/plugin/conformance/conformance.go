// Package conformance is the ABI v1 conformance kit: Run loads a plugin
// module, whatever language it was written in, exactly as the proxy would
// and runs the checks every example plugin passes, one named result per
// check. `agent-harness plugin check`, the public host/plugincheck and the
// repository's own tests (plugintest.Conformance) all run it.
package conformance

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/plugin"
)

// Check names, in the order Run runs them. A hook's check runs only when
// the manifest declares the hook.
const (
	CheckLoad            = "load"
	CheckClassify        = plugin.HookClassify
	CheckEquivKey        = plugin.HookEquivKey
	CheckEquivSame       = plugin.HookEquivSame
	CheckFault           = plugin.HookFault
	CheckManyCalls       = "many calls"
	CheckConcurrentCalls = "concurrent calls"
	CheckStaysEnabled    = "stays enabled"
)

// DefaultTimeout is the hook deadline of a check when opts.Timeout is
// zero: conformance is about behaviour, not speed (the proxy's default is
// 100 ms; `plugin inspect` and the benchmarks measure speed).
const DefaultTimeout = 5 * time.Second

// Result is the outcome of one check.
type Result struct {
	// Name is the check's name (CheckLoad, …).
	Name string
	// Failure is empty when the check passed, else its first problem
	// (plugin text included as the plugin wrote it; escape it before
	// printing it on a terminal), followed by "(and N more)".
	Failure string
}

// OK reports whether the check passed.
func (r Result) OK() bool { return r.Failure == "" }

// Run checks that the module at path implements ABI v1 as sdk/ABI.md
// describes: it loads (exports, signatures, imports, manifest, ah_init
// with opts.Config), answers every declared hook for a set of ordinary
// inputs without a single failure, answers the same input the same way on
// fresh instances, keeps the built-in equivalences (key fields, member
// order, exact numbers), takes inputs up to 512 KiB, survives many and
// concurrent calls, and stays enabled. A failed hook call fails the check
// during which it happened.
//
// When the module does not load the one result is CheckLoad's. opts is
// used as given (its Log receives the plugin's output) except that
// OnFailure is replaced and a zero Timeout is DefaultTimeout.
func Run(ctx context.Context, path string, opts plugin.Options) []Result {
	r := &runner{ctx: ctx, path: path}
	opts.OnFailure = r.onFailure
	if opts.Timeout == 0 {
		opts.Timeout = DefaultTimeout
	}
	r.opts = opts
	defer r.close()
	p, err := r.load()
	if err == nil {
		if m := p.Manifest(); m.ABI != plugin.ABIVersion || len(m.Hooks) == 0 {
			err = fmt.Errorf("manifest %+v", m)
		}
	}
	if err != nil {
		return []Result{{Name: CheckLoad, Failure: err.Error()}}
	}
	results := []Result{{Name: CheckLoad}}
	for _, c := range r.checks(p) {
		results = append(results, r.run(c.name, c.fn))
	}
	results = append(results, r.run(CheckStaysEnabled, func(c *check) {
		switch st := p.Status(); {
		case st.Disabled:
			c.errorf("disabled after %d failed calls, first: %s", st.Failures, st.FirstFailure)
		case st.Failures != 0:
			c.errorf("%d failed calls, first: %s", st.Failures, st.FirstFailure)
		}
	}))
	return results
}

type namedCheck struct {
	name string
	fn   func(*check)
}

// checks lists the checks that apply to p after it loaded.
func (r *runner) checks(p *plugin.Plugin) []namedCheck {
	var cs []namedCheck
	if p.Classifier() != nil {
		cs = append(cs, namedCheck{CheckClassify, func(c *check) {
			if q := r.fresh(c); q != nil {
				checkClassify(c, p.Classifier(), q.Classifier())
			}
		}})
	}
	if p.Equivalence() != nil {
		cs = append(cs, namedCheck{CheckEquivKey, func(c *check) {
			if q := r.fresh(c); q != nil {
				checkEquivKey(c, p.Equivalence(), q.Equivalence())
			}
		}})
	}
	if p.PairChecker() != nil {
		cs = append(cs, namedCheck{CheckEquivSame, func(c *check) {
			if q := r.fresh(c); q != nil {
				checkEquivSame(c, p.PairChecker(), q.PairChecker())
			}
		}})
	}
	if len(p.Manifest().Faults) > 0 {
		cs = append(cs, namedCheck{CheckFault, func(c *check) {
			if q := r.fresh(c); q != nil {
				checkFaults(c, p, q)
			}
		}})
	}
	return append(cs,
		namedCheck{CheckManyCalls, func(c *check) { manyCalls(c, p, 2000, 1) }},
		namedCheck{CheckConcurrentCalls, func(c *check) { manyCalls(c, p, 50, 8) }})
}

// runner holds one Run: the plugins it loaded and the failures they
// reported.
type runner struct {
	ctx      context.Context
	path     string
	opts     plugin.Options
	mu       sync.Mutex
	failures []string // every plugin failure reported, in order
	loaded   []*plugin.Plugin
}

func (r *runner) onFailure(_, detail string, disabled bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !disabled {
		r.failures = append(r.failures, detail)
	}
}

func (r *runner) load() (*plugin.Plugin, error) {
	p, err := plugin.Load(r.ctx, r.path, r.opts)
	if err != nil {
		return nil, err
	}
	r.loaded = append(r.loaded, p)
	return p, nil
}

// fresh loads the module again (its own instances), for the determinism
// checks; nil after a problem.
func (r *runner) fresh(c *check) *plugin.Plugin {
	p, err := r.load()
	if err != nil {
		c.errorf("loading it again: %v", err)
		return nil
	}
	return p
}

func (r *runner) close() {
	for _, p := range r.loaded {
		p.Close(r.ctx)
	}
}

// run runs one check; a plugin failure reported meanwhile fails it first.
func (r *runner) run(name string, fn func(*check)) Result {
	r.mu.Lock()
	before := len(r.failures)
	r.mu.Unlock()
	var c check
	fn(&c)
	r.mu.Lock()
	failed := append([]string(nil), r.failures[before:]...)
	r.mu.Unlock()
	var problems []string
	for _, f := range failed {
		problems = append(problems, "plugin failure: "+f)
	}
	problems = append(problems, c.problems...)
	res := Result{Name: name}
	switch len(problems) {
	case 0:
	case 1:
		res.Failure = problems[0]
	default:
		res.Failure = fmt.Sprintf("%s (and %d more)", problems[0], len(problems)-1)
	}
	return res
}

// check collects one check's problems; the concurrent-calls check reports
// from several goroutines.
type check struct {
	mu       sync.Mutex
	problems []string
}

func (c *check) errorf(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.problems = append(c.problems, fmt.Sprintf(format, args...))
}

// Test runs Run as a Go test: CheckLoad's failure is fatal, every other
// check is a subtest of its name that fails with its problem. The
// plugin's output goes to t.Log.
func Test(t *testing.T, path string, opts plugin.Options) {
	t.Helper()
	opts.Log = &testLog{t: t}
	results := Run(context.Background(), path, opts)
	if !results[0].OK() {
		t.Fatalf("Load: %s", results[0].Failure)
	}
	for _, res := range results[1:] {
		t.Run(res.Name, func(t *testing.T) {
			if !res.OK() {
				t.Error(res.Failure)
			}
		})
	}
}

type testLog struct{ t *testing.T }

func (l *testLog) Write(p []byte) (int, error) {
	l.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}
