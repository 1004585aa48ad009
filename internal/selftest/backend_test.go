package selftest

import (
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// connectBackend serves b in memory and returns a client session.
func connectBackend(t *testing.T, b *Backend) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := b.Server().Connect(t.Context(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(t.Context(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func TestBackendExecutesEveryWriteAndFindsByGuest(t *testing.T) {
	clock := NewClock(epoch)
	b := NewBackend(clock, 0, 0)
	cs := connectBackend(t, b)
	task := Task{Guest: "Ada", Date: "2026-11-03", Room: "double", Key: "k"}
	for range 2 { // not idempotent: the same key executes twice
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: WriteTool, Arguments: map[string]any{
			"guest": task.Guest, "date": task.Date, "room": task.Room, "idempotency_key": task.Key}})
		if err != nil || res.IsError {
			t.Fatalf("create_booking: %v %+v", err, res)
		}
	}
	if got := len(b.Bookings()); got != 2 {
		t.Errorf("%d bookings, want 2", got)
	}
	tests := []struct {
		name string
		task Task
		want lookup
	}{
		{"same guest and date", task, lookupFound},
		{"other date", Task{Guest: "Ada", Date: "2026-11-04"}, lookupMissing},
		{"other guest", Task{Guest: "Bo", Date: "2026-11-03"}, lookupMissing},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := find(t.Context(), cs, tc.task)
			if err != nil || got != tc.want {
				t.Errorf("find = %v, %v; want %v", got, err, tc.want)
			}
		})
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: WriteTool, Arguments: map[string]any{"guest": "x"}})
	if err != nil || !res.IsError {
		t.Errorf("create_booking without date and room: %v %+v, want a tool error", err, res)
	}
	if !clock.Now().Equal(epoch) {
		t.Errorf("clock moved without jitter: %v", clock.Now())
	}
}

func TestBackendJitterIsSeededAndOnTheFakeClock(t *testing.T) {
	elapsed := func(seed uint64) time.Duration {
		clock := NewClock(epoch)
		cs := connectBackend(t, NewBackend(clock, 100*time.Millisecond, seed))
		for range 5 {
			if _, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ReadTool, Arguments: map[string]any{"guest": "g"}}); err != nil {
				t.Fatal(err)
			}
		}
		return clock.Now().Sub(epoch)
	}
	a, b, c := elapsed(1), elapsed(1), elapsed(2)
	if a != b {
		t.Errorf("same seed, different delays: %v vs %v", a, b)
	}
	if a == c {
		t.Errorf("different seeds, same delays %v", a)
	}
	if a <= 0 || a > 500*time.Millisecond {
		t.Errorf("5 calls with jitter ≤ 100 ms advanced the clock by %v", a)
	}
}

func TestClockNeverRunsBackwards(t *testing.T) {
	c := NewClock(epoch)
	c.Advance(-time.Hour)
	c.Advance(time.Second)
	if got := c.Now().Sub(epoch); got != time.Second {
		t.Errorf("clock at +%v, want +1s", got)
	}
	pc := pipelineClock{c}
	<-pc.After(time.Minute)
	if got := c.Now().Sub(epoch); got != time.Minute+time.Second {
		t.Errorf("After did not advance the clock: +%v", got)
	}
}
