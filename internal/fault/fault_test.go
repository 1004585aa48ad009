package fault

import (
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

func call(id int64, class classify.Class) Call {
	return Call{ID: id, Tool: "create_booking", Class: class, Arguments: json.RawMessage(`{"a":1}`)}
}

// isPass reports whether a is a plain pass that applied no scenario.
func isPass(a Action) bool {
	return a.Kind == Pass && a.Scenario == "" && a.Fault == "" && a.Result == nil
}

func mustNew(t *testing.T, name string, opts Options) Fault {
	t.Helper()
	f, err := New(name, opts)
	if err != nil {
		t.Fatalf("New(%q): %v", name, err)
	}
	return f
}

func TestInjectedBodies(t *testing.T) {
	tests := []struct {
		name     string
		scenario string
		opts     Options
		want     string
		kind     ActionKind
		fault    string
	}{
		{"F1 timeout", "F1", Options{}, `{"content":[{"type":"text","text":"Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown."}],"isError":true}`, ForwardReplace, "timeout"},
		{"F2 default 60 s", "F2", Options{}, `{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}],"structuredContent":{"error":"rate_limited","status":429,"retry_after":60},"isError":true}`, Inject, "rate_limit"},
		{"F2 configured 1 s", "F2", Options{RetryAfter: time.Second}, `{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 1 seconds."}],"structuredContent":{"error":"rate_limited","status":429,"retry_after":1},"isError":true}`, Inject, "rate_limit"},
		{"F3 truncated", "F3", Options{}, `{"content":[{"type":"text","text":"{\""}],"isError":true}`, Inject, "truncated_json"},
		{"F5 server error", "F5", Options{}, `{"content":[{"type":"text","text":"Error: HTTP 500 Internal Server Error."}],"isError":true}`, Inject, "server_error"},
		{"chaos server error", "chaos", Options{ErrorRate: 1}, `{"content":[{"type":"text","text":"Error: HTTP 500 Internal Server Error."}],"isError":true}`, Inject, "chaos"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := mustNew(t, tt.scenario, tt.opts).Decide(call(1, classify.Write))
			if string(a.Result) != tt.want {
				t.Errorf("result\n got %s\nwant %s", a.Result, tt.want)
			}
			if a.Kind != tt.kind || a.Fault != tt.fault || a.Scenario != tt.scenario {
				t.Errorf("action = kind %d fault %q scenario %q, want %d %q %q", a.Kind, a.Fault, a.Scenario, tt.kind, tt.fault, tt.scenario)
			}
		})
	}
}

func TestRetryAfterInAction(t *testing.T) {
	a := mustNew(t, "F2", Options{RetryAfter: 90 * time.Second}).Decide(call(1, classify.Write))
	if a.RetryAfter != 90*time.Second {
		t.Errorf("RetryAfter = %v, want 90s", a.RetryAfter)
	}
}

// TestFiresOnFirstWriteOnly: behaviour §3 — scenarios fire on the agent's write
// calls, never on reads, unclassified or unlisted tools, and those calls
// leave the scenario armed.
func TestFiresOnFirstWriteOnly(t *testing.T) {
	for _, name := range []string{"F1", "F2", "F3", "F5"} {
		t.Run(name, func(t *testing.T) {
			f := mustNew(t, name, Options{})
			for i, class := range []classify.Class{classify.Read, classify.Unclassified, classify.Unknown, ""} {
				if a := f.Decide(call(int64(i+1), class)); !isPass(a) {
					t.Fatalf("class %q: action %+v, want pass without scenario", class, a)
				}
			}
			a := f.Decide(call(10, classify.Write))
			if a.Kind == Pass || a.Scenario != name {
				t.Fatalf("first write: %+v, want the fault", a)
			}
			if s, ok := f.(Settler); ok {
				s.Settle(call(10, classify.Write), a, true)
			}
			if a := f.Decide(call(11, classify.Write)); a.Kind != Pass || a.Scenario != "" {
				t.Fatalf("second write: %+v, want pass", a)
			}
		})
	}
}

func TestF1Settle(t *testing.T) {
	tests := []struct {
		name      string
		settleID  int64
		executed  bool
		wantArmed bool
	}{
		{"executed consumes", 1, true, false},
		{"rejected or no answer re-arms", 1, false, true},
		{"another call's settle is ignored", 2, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewGhostWrite()
			a := f.Decide(call(1, classify.Write))
			f.Settle(call(tt.settleID, classify.Write), a, tt.executed)
			next := f.Decide(call(3, classify.Write))
			if got := next.Kind == ForwardReplace; got != tt.wantArmed {
				t.Errorf("armed after settle = %v, want %v", got, tt.wantArmed)
			}
		})
	}
}

// TestF1PendingClaimBlocksOthers: while F1's write is in flight, a second
// write is not "the first" (behaviour §3: exactly one of two concurrent writes).
func TestF1PendingClaimBlocksOthers(t *testing.T) {
	f := NewGhostWrite()
	a := f.Decide(call(1, classify.Write))
	if b := f.Decide(call(2, classify.Write)); b.Kind != Pass {
		t.Fatalf("second write during pending claim: %+v", b)
	}
	f.Settle(call(2, classify.Write), Action{}, false) // pass-through answer: no effect
	f.Settle(call(1, classify.Write), a, false)
	if c := f.Decide(call(3, classify.Write)); c.Kind != ForwardReplace {
		t.Fatalf("write after re-arm: %+v, want ForwardReplace", c)
	}
}

func TestF4FirstTwoWrites(t *testing.T) {
	f := mustNew(t, "F4", Options{})
	want := []string{"", "F4", "F4", "", ""}
	classes := []classify.Class{classify.Read, classify.Write, classify.Write, classify.Write, classify.Write}
	for i, class := range classes {
		a := f.Decide(call(int64(i+1), class))
		if a.Kind != Pass || a.Scenario != want[i] || a.Result != nil {
			t.Errorf("call %d (%s): %+v, want pass with scenario %q", i+1, class, a, want[i])
		}
	}
}

// TestConcurrentFirstWrite: of many writes arriving at once, exactly one
// gets the fault (two for F4).
func TestConcurrentFirstWrite(t *testing.T) {
	for _, tt := range []struct {
		name string
		want int
	}{{"F1", 1}, {"F2", 1}, {"F3", 1}, {"F4", 2}, {"F5", 1}} {
		t.Run(tt.name, func(t *testing.T) {
			f := mustNew(t, tt.name, Options{})
			const n = 64
			var wg sync.WaitGroup
			var mu sync.Mutex
			fired := 0
			start := make(chan struct{})
			for i := range n {
				wg.Go(func() {
					<-start
					if a := f.Decide(call(int64(i+1), classify.Write)); a.Scenario != "" {
						mu.Lock()
						fired++
						mu.Unlock()
					}
				})
			}
			close(start)
			wg.Wait()
			if fired != tt.want {
				t.Errorf("fired %d times, want %d", fired, tt.want)
			}
		})
	}
}

func TestChaosDeterministicPerCallID(t *testing.T) {
	decide := func(f Fault, ids []int64) map[int64]bool {
		got := map[int64]bool{}
		for _, id := range ids {
			got[id] = f.Decide(call(id, classify.Write)).Kind == Inject
		}
		return got
	}
	forward := make([]int64, 200)
	backward := make([]int64, 200)
	for i := range forward {
		forward[i] = int64(i + 1)
		backward[i] = int64(200 - i)
	}
	a := decide(NewChaos(42, 0.3), forward)
	b := decide(NewChaos(42, 0.3), backward)
	c := decide(NewChaos(43, 0.3), forward)
	same, differ := true, false
	for id := range a {
		same = same && a[id] == b[id]
		differ = differ || a[id] != c[id]
	}
	if !same {
		t.Error("same seed, same call IDs in another order: different faults")
	}
	if !differ {
		t.Error("seeds 42 and 43 gave identical faults on 200 calls")
	}
}

func TestChaosRate(t *testing.T) {
	tests := []struct {
		name     string
		rate     float64
		min, max int
	}{
		{"rate 0 never fires", 0, 0, 0},
		{"rate 1 always fires", 1, 10000, 10000},
		{"rate 0.3 fires about 30 %", 0.3, 2800, 3200},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := NewChaos(7, tt.rate)
			n := 0
			for id := int64(1); id <= 10000; id++ {
				class := classify.Write
				if id%2 == 0 {
					class = classify.Read
				}
				if f.Decide(call(id, class)).Kind == Inject {
					n++
				}
			}
			if n < tt.min || n > tt.max {
				t.Errorf("fired %d of 10000, want %d–%d", n, tt.min, tt.max)
			}
		})
	}
}

func TestChaosSkipsUnjudgedTools(t *testing.T) {
	f := NewChaos(1, 1)
	for _, class := range []classify.Class{classify.Unclassified, classify.Unknown} {
		if a := f.Decide(call(1, class)); !isPass(a) {
			t.Errorf("class %s: %+v, want pass", class, a)
		}
	}
	if a := f.Decide(call(1, classify.Read)); a.Kind != Inject {
		t.Errorf("read at rate 1: %+v, want inject", a)
	}
}

func TestNewErrors(t *testing.T) {
	tests := []struct {
		name    string
		fault   string
		opts    Options
		unknown bool
	}{
		{"unknown name", "F9", Options{}, true},
		{"retry_after too large", "F2", Options{RetryAfter: MaxRetryAfter + time.Second}, false},
		{"retry_after fractional", "F2", Options{RetryAfter: 1500 * time.Millisecond}, false},
		{"retry_after negative", "F2", Options{RetryAfter: -time.Second}, false},
		{"error rate above 1", "chaos", Options{ErrorRate: 1.5}, false},
		{"error rate negative", "chaos", Options{ErrorRate: -0.1}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := New(tt.fault, tt.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if errors.Is(err, ErrUnknown) != tt.unknown {
				t.Errorf("errors.Is(err, ErrUnknown) = %v, want %v (%v)", !tt.unknown, tt.unknown, err)
			}
		})
	}
	for _, name := range Names() {
		f := mustNew(t, name, Options{})
		if f.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, f.Name())
		}
	}
}

func BenchmarkChaosDecide(b *testing.B) {
	f := NewChaos(1, 0.5)
	c := call(0, classify.Write)
	for i := 0; b.Loop(); i++ {
		c.ID = int64(i)
		f.Decide(c)
	}
}

func BenchmarkGhostWriteDecide(b *testing.B) {
	f := NewGhostWrite()
	f.Decide(call(0, classify.Write))
	c := call(1, classify.Write)
	for b.Loop() {
		f.Decide(c)
	}
}
