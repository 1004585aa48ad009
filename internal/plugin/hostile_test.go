package plugin_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/plugin"
	. "github.com/cuonztech/agent-harness/internal/plugin/plugintest/wasmbin"
)

// failures records OnFailure calls: "NAME: DETAIL", with " [disabled]"
// appended for the disabling.
type failures struct {
	mu   sync.Mutex
	list []string
}

func (f *failures) add(name, detail string, disabled bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if disabled {
		detail += " [disabled]"
	}
	f.list = append(f.list, name+": "+detail)
}

func (f *failures) get() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.list...)
}

// loadWith loads path with test options changed by opt and records
// failures.
func loadWith(t *testing.T, path string, opt func(*plugin.Options)) (*plugin.Plugin, *failures, *logBuffer) {
	t.Helper()
	f := &failures{}
	log := &logBuffer{}
	o := testOptions(t)
	o.Log = log
	o.OnFailure = f.add
	if opt != nil {
		opt(&o)
	}
	p, err := plugin.Load(context.Background(), path, o)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	t.Cleanup(func() { p.Close(context.Background()) })
	return p, f, log
}

const okClass = `{"class":"read","reason":"ok"}`

// handmade returns a classify plugin whose hook runs body; okClass is at
// offset 1024.
func handmade(t *testing.T, body []byte, s spec) string {
	s.manifest = classifyManifest("x")
	s.hooks = map[string][]byte{"ah_classify": body}
	if s.data == nil {
		s.data = map[uint32]string{}
	}
	s.data[1024] = okClass
	return s.write(t)
}

func returnData(off uint32, d string) []byte { return PackPtrLen(off, uint32(len(d))) }

func TestHostileHandmade(t *testing.T) {
	garbage := "not json at all"
	errJSON := `{"error":"guest says no"}`
	badClass := `{"class":"maybe","reason":"?"}`
	tests := []struct {
		name   string
		body   []byte
		s      spec
		opt    func(*plugin.Options)
		detail string
	}{
		{name: "infinite loop", body: infLoop, opt: func(o *plugin.Options) { o.Timeout = 5 * time.Millisecond },
			detail: "classify t: ah_classify: deadline of 5ms exceeded"},
		{name: "trap", body: trap, detail: "classify t: ah_classify: trap: wasm error: unreachable"},
		{name: "garbage output", body: returnData(2048, garbage), s: spec{data: map[uint32]string{2048: garbage}},
			detail: "classify t: output is not the expected JSON: invalid character 'o' in literal null (expecting 'u')"},
		{name: "oversized output", body: PackPtrLen(0, 2<<20), s: spec{memMin: 48},
			detail: "classify t: ah_classify: output of 2097152 bytes exceeds the limit of 1048576"},
		{name: "output out of bounds", body: PackPtrLen(0xffff0000, 16),
			detail: "classify t: ah_classify: output (ptr 4294901760, len 16) lies outside memory (131072 bytes)"},
		{name: "error answer", body: returnData(2048, errJSON), s: spec{data: map[uint32]string{2048: errJSON}},
			detail: "classify t: plugin error: guest says no"},
		{name: "wrong class", body: returnData(2048, badClass), s: spec{data: map[uint32]string{2048: badClass}},
			detail: `classify t: class "maybe" is not read, write or unclassified`},
		{name: "alloc returns 0", body: noOpinion, s: spec{omit: map[string]bool{"ah_alloc": true}, extra: func(m *Module) {
			m.ExportFunc("ah_alloc", m.Func(i32, i32, nil, I32Const(0)))
		}}, detail: "classify t: ah_alloc: trap: ah_alloc(4096) returned 0"},
		{name: "input over limit", body: noOpinion, opt: func(o *plugin.Options) { o.InputLimit = 64 },
			detail: "classify t: input of 79 bytes exceeds the limit of 64"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, f, _ := loadWith(t, handmade(t, tt.body, tt.s), tt.opt)
			c := p.Classifier()
			tool := classify.Tool{Name: "t", Description: strings.Repeat("d", 50)}
			want := classify.Result{Class: classify.Unclassified, Reason: "plugin x failed: " + tt.detail}
			for i := 1; i <= 5; i++ {
				if r, ok := c.Classify(tool); !ok || r != want {
					t.Fatalf("call %d: Classify = %+v, %v; want %+v", i, r, ok, want)
				}
			}
			// The circuit breaker has tripped: the guest is no longer called.
			want.Reason = "plugin x disabled after repeated failures"
			if r, ok := c.Classify(tool); !ok || r != want {
				t.Errorf("after 5 failures: Classify = %+v, %v; want %+v", r, ok, want)
			}
			st := p.Status()
			if !st.Disabled || st.Failures != 5 || st.State() != "disabled" || st.LastFailure != tt.detail {
				t.Errorf("status %+v", st)
			}
			got := f.get()
			if len(got) != 6 || got[0] != "x: "+tt.detail || got[5] != "x: disabled after 5 consecutive failures [disabled]" {
				t.Errorf("OnFailure calls %q", got)
			}
		})
	}
}

// A failure discards the instance; later good calls work on a new one and
// reset the breaker.
func TestRecoveryAfterFailure(t *testing.T) {
	// classify loops forever when the input is longer than 100 bytes.
	body := concat(LocalGet(1), I32Const(100), I32GtU, If(), Loop(), Br(0), End, End, returnData(1024, okClass))
	// The deadline also bounds the small calls that must succeed, so it
	// leaves room for a loaded machine; the 12 looping calls cost 12 times it.
	p, f, _ := loadWith(t, handmade(t, body, spec{}), func(o *plugin.Options) { o.Timeout = 250 * time.Millisecond })
	c := p.Classifier()
	small, big := classify.Tool{Name: "a"}, classify.Tool{Name: "a", Description: strings.Repeat("x", 200)}
	for round := 0; round < 3; round++ {
		for i := 0; i < 4; i++ {
			if r, _ := c.Classify(big); r.Class != classify.Unclassified {
				t.Fatalf("big: %+v", r)
			}
		}
		if r, ok := c.Classify(small); !ok || r.Class != classify.Read || r.Reason != "ok (plugin x)" {
			t.Fatalf("small after failures: %+v, %v", r, ok)
		}
	}
	if st := p.Status(); st.Disabled || st.Failures != 12 || st.State() != "failed" {
		t.Errorf("status %+v", st)
	}
	if n := len(f.get()); n != 12 {
		t.Errorf("%d failures reported, want 12", n)
	}
}

// memory.grow stops at the limit (-1), and an instance at the high-water
// mark is recycled rather than reused.
func TestMemoryLimitAndRecycle(t *testing.T) {
	// Grow one page at a time until memory.grow fails, then answer okClass.
	body := concat(Block(), Loop(), I32Const(1), MemoryGrow, I32Const(-1), I32Eq, BrIf(1), Br(0), End, End, returnData(1024, okClass))
	p, f, _ := loadWith(t, handmade(t, body, spec{}), func(o *plugin.Options) { o.MemoryMiB = 4; o.RecycleMemoryMiB = 2; o.Timeout = 10 * time.Second })
	for i := 0; i < 3; i++ {
		if r, ok := p.Classifier().Classify(classify.Tool{Name: "bomb"}); !ok || r.Class != classify.Read {
			t.Fatalf("Classify = %+v, %v", r, ok)
		}
	}
	if st := p.Status(); st.Failures != 0 || st.Recycled != 3 {
		t.Errorf("status %+v, want 0 failures and 3 recycled instances", st)
	}
	if len(f.get()) != 0 {
		t.Errorf("failures %q", f.get())
	}
}

func TestRecycleAfterCalls(t *testing.T) {
	p, _, _ := loadWith(t, handmade(t, returnData(1024, okClass), spec{}), func(o *plugin.Options) { o.RecycleCalls = 10 })
	for i := 0; i < 35; i++ {
		p.Classifier().Classify(classify.Tool{Name: "t"})
	}
	if st := p.Status(); st.Recycled != 3 || st.Calls != 35 {
		t.Errorf("status %+v, want 3 recycled after 35 calls", st)
	}
}

func TestHostileGo(t *testing.T) {
	path := goPlugin(t, "./internal/plugin/testdata/hostile")
	tests := []struct {
		tool   string
		opt    func(*plugin.Options)
		want   classify.Result
		detail string // failure detail, "" = no failure
		log    string // expected in the captured log
	}{
		// The deadline also bounds the "fine" call after it, on a fresh
		// instance: 20 ms was exceeded there on a loaded 2-core machine.
		{tool: "loop", opt: func(o *plugin.Options) { o.Timeout = 2 * time.Second },
			detail: "classify loop: ah_classify: deadline of 2s exceeded"},
		{tool: "panic", detail: "classify panic: plugin error: panic: hostile panic"},
		{tool: "error", detail: "classify error: plugin error: hostile error"},
		// The deadline only bounds a broken test: the memory cap must stop the
		// bomb, however slow the machine (it took 6.6 s under -race on a loaded
		// 2-core machine).
		{tool: "bomb", opt: func(o *plugin.Options) { o.MemoryMiB = 32; o.Timeout = 60 * time.Second },
			detail: "classify bomb: ah_classify: trap: wasm error: unreachable", log: "fatal error: out of memory"},
		{tool: "exit", detail: "classify exit: ah_classify: exited with code 3"},
		{tool: "sleep", want: classify.Result{Class: classify.Read, Reason: "slept 1h0m0s (plugin hostile)"}},
		{tool: "clock", want: classify.Result{Class: classify.Read, Reason: "2026-01-01T00:00:00Z (plugin hostile)"}},
		{tool: "log", want: classify.Result{Class: classify.Read, Reason: "ok (plugin hostile)"},
			log: "[agent-harness] plugin hostile: hello from the guest\n"},
		{tool: "print", opt: func(o *plugin.Options) { o.LogLimit = 1000 }, want: classify.Result{Class: classify.Read, Reason: "ok (plugin hostile)"},
			log: "[agent-harness] plugin hostile: output limit (1000 bytes) reached; further output dropped\n"},
	}
	for _, tt := range tests {
		t.Run(tt.tool, func(t *testing.T) {
			p, f, log := loadWith(t, path, tt.opt)
			r, ok := p.Classifier().Classify(classify.Tool{Name: tt.tool})
			want := tt.want
			if tt.detail != "" {
				want = classify.Result{Class: classify.Unclassified, Reason: "plugin hostile failed: " + tt.detail}
			}
			if !ok || r != want {
				t.Errorf("Classify = %+v, %v; want %+v", r, ok, want)
			}
			if got := f.get(); tt.detail != "" && (len(got) != 1 || got[0] != "hostile: "+tt.detail) || tt.detail == "" && len(got) != 0 {
				t.Errorf("failures %q", got)
			}
			if !strings.Contains(log.String(), tt.log) {
				t.Errorf("log %q does not contain %q", log.String(), tt.log)
			}
			// The host survives and the plugin still answers.
			if r, ok := p.Classifier().Classify(classify.Tool{Name: "fine"}); !ok || r.Reason != "ok (plugin hostile)" {
				t.Errorf("next call: %+v, %v", r, ok)
			}
		})
	}
}

// Two fresh loads draw the same "random" numbers: the sandbox's
// random_get is a fixed-seed stream.
func TestDeterministicRandom(t *testing.T) {
	path := goPlugin(t, "./internal/plugin/testdata/hostile")
	var got []string
	for i := 0; i < 2; i++ {
		p, _, _ := loadWith(t, path, nil)
		r, _ := p.Classifier().Classify(classify.Tool{Name: "random"})
		got = append(got, r.Reason)
	}
	if got[0] != got[1] {
		t.Errorf("random differs between instances: %q", got)
	}
}

func TestCircuitBreakerGo(t *testing.T) {
	p, f, _ := loadWith(t, goPlugin(t, "./internal/plugin/testdata/hostile"), nil)
	e := p.Equivalence()
	for i := 0; i < 5; i++ {
		_, ok, err := e.Key("t", json.RawMessage(`{"do":"panic"}`))
		if ok || !errors.Is(err, plugin.ErrHook) {
			t.Fatalf("Key = %v, %v", ok, err)
		}
	}
	_, ok, err := e.Key("t", json.RawMessage(`{"do":"fine"}`))
	if ok || !errors.Is(err, plugin.ErrDisabled) {
		t.Errorf("after 5 failures: Key = %v, %v; want ErrDisabled", ok, err)
	}
	// Equivalence failures are reported like any other (the judge takes
	// the error as no opinion and reads the status), then the disabling.
	if got := f.get(); len(got) != 6 || !strings.HasPrefix(got[0], "hostile: equiv_key t: ") ||
		got[5] != "hostile: disabled after 5 consecutive failures [disabled]" {
		t.Errorf("failures %q", got)
	}
	if st := p.Status(); !st.Disabled || st.Failures != 5 {
		t.Errorf("status %+v", st)
	}
	if h := p.Health(); !h.Disabled || h.Failures != 5 || h.Detail != p.Status().FirstFailure || !strings.HasPrefix(h.Detail, "equiv_key t: ") {
		t.Errorf("health %+v", h)
	}
}

// Concurrent calls never share an instance (run with -race) and a
// failing call on one goroutine does not disturb the others.
func TestConcurrentCalls(t *testing.T) {
	p, _, _ := loadWith(t, goPlugin(t, "./internal/plugin/testdata/hostile"), func(o *plugin.Options) {
		o.MaxInstances = 3
		o.MaxFailures = 1000
	})
	var wg sync.WaitGroup
	errs := make(chan error, 100)
	for g := 0; g < 6; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				do := "fine"
				if i%7 == 3 {
					do = "panic"
				}
				key, ok, err := p.Equivalence().Key("t", json.RawMessage(fmt.Sprintf(`{"do":%q}`, do)))
				if do == "fine" && (err != nil || !ok || key != "hostile:ok") {
					errs <- fmt.Errorf("Key = %q, %v, %v", key, ok, err)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestDisable: a plugin disabled from outside (re-judging a trace where it
// was) answers ErrDisabled without running and without a failure; the
// disabling's detail is its health's.
func TestDisable(t *testing.T) {
	p, f, _ := loadWith(t, goPlugin(t, "./internal/plugin/testdata/hostile"), nil)
	if !p.Disable("disabled after 5 consecutive failures") || p.Disable("again") {
		t.Fatal("Disable did not report the first disabling only")
	}
	if _, ok, err := p.Equivalence().Key("t", json.RawMessage(`{"do":"fine"}`)); ok || !errors.Is(err, plugin.ErrDisabled) {
		t.Errorf("Key = %v, %v; want ErrDisabled", ok, err)
	}
	want := judge.PluginState{Name: "hostile", Detail: "disabled after 5 consecutive failures", Disabled: true}
	if h := p.Health(); h != want {
		t.Errorf("health %+v, want %+v", h, want)
	}
	if got := f.get(); len(got) != 0 {
		t.Errorf("OnFailure calls %q, want none", got)
	}
}
