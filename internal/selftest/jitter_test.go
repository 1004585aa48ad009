package selftest

import (
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/refagent"
	"github.com/cuonztech/agent-harness/internal/sampleserver"
)

// connectBackend serves srv in memory and returns a client session.
func connectBackend(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(t.Context(), st, nil)
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
	b, srv := newBackend(clock, 0, 0)
	cs := connectBackend(t, srv)
	task := refagent.Task{Guest: "Ada", Date: "2026-11-03", Room: "double", Key: "k"}
	for range 2 { // not idempotent: the same key executes twice
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: WriteTool, Arguments: map[string]any{
			"guest": task.Guest, "date": task.Date, "room": task.Room, "idempotency_key": task.Key}})
		if err != nil || res.IsError {
			t.Fatalf("create_booking: %v %+v", err, res)
		}
	}
	if got := b.Counts().Bookings; got != 2 {
		t.Errorf("%d bookings, want 2", got)
	}
	tests := []struct {
		name string
		task refagent.Task
		want int
	}{
		{"same guest and date", task, 2},
		{"other date", refagent.Task{Guest: "Ada", Date: "2026-11-04"}, 0},
		{"other guest", refagent.Task{Guest: "Bo", Date: "2026-11-03"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			// The search a careful agent makes: by guest and date, no id.
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: ReadTool, Arguments: map[string]any{
				"guest": tc.task.Guest, "date": tc.task.Date}})
			if err != nil || res.IsError {
				t.Fatalf("%s: %v %+v", ReadTool, err, res)
			}
			var body struct {
				Bookings *[]sampleserver.Booking `json:"bookings"`
			}
			if err := json.Unmarshal([]byte(res.Content[0].(*mcp.TextContent).Text), &body); err != nil || body.Bookings == nil {
				t.Fatalf("%s answered %v: %v", ReadTool, res.Content, err)
			}
			if got := len(*body.Bookings); got != tc.want {
				t.Errorf("%d bookings found, want %d", got, tc.want)
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
		_, srv := newBackend(clock, 100*time.Millisecond, seed)
		cs := connectBackend(t, srv)
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

// TestBackendListsTheAgentsTools: a run's backend lists the write and the
// read the reference agents call, and nothing else.
func TestBackendListsTheAgentsTools(t *testing.T) {
	_, srv := newBackend(NewClock(epoch), 0, 0)
	res, err := connectBackend(t, srv).ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, tl := range res.Tools {
		got = append(got, tl.Name)
	}
	if want := []string{WriteTool, ReadTool}; !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
}
