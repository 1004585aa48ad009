package sampleserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, b *Backend) *mcp.ClientSession {
	t.Helper()
	return connectServer(t, b.Server("test"))
}

func connectServer(t *testing.T, srv *mcp.Server) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := srv.Connect(ctx, st, nil); err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "t", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (map[string]any, bool) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if !res.IsError {
		raw, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(raw, &m)
	}
	return m, res.IsError
}

func TestBackendGroundTruth(t *testing.T) {
	var state bytes.Buffer
	cs := connect(t, New(&state))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
	}
	if byName["create_booking"].OutputSchema == nil || !byName["cancel_booking"].Annotations.IdempotentHint ||
		!byName["find_bookings"].Annotations.ReadOnlyHint || !byName["get_booking"].Annotations.ReadOnlyHint {
		t.Errorf("tool definitions: %+v", tools.Tools)
	}
	args := map[string]any{"guest": "Ada", "date": "2026-11-03", "room": "double"}
	first, _ := call(t, cs, "create_booking", args)
	second, _ := call(t, cs, "create_booking", args) // no key: books again
	if first["booking_id"] != "B-0001" || second["booking_id"] != "B-0002" {
		t.Errorf("bookings %v %v", first, second)
	}
	args["idempotency_key"] = "k"
	third, _ := call(t, cs, "create_booking", args)
	again, _ := call(t, cs, "create_booking", args)
	if third["booking_id"] != "B-0003" || again["booking_id"] != "B-0003" || again["replayed"] != true {
		t.Errorf("keyed bookings %v %v", third, again)
	}
	found, _ := call(t, cs, "find_bookings", map[string]any{"guest": "Ada"})
	if n := len(found["bookings"].([]any)); n != 3 {
		t.Errorf("find_bookings found %d, want 3", n)
	}
	c1, _ := call(t, cs, "cancel_booking", map[string]any{"booking_id": "B-0001"})
	c2, _ := call(t, cs, "cancel_booking", map[string]any{"booking_id": "B-0001"})
	if c1["status"] != "cancelled" || c2["status"] != "cancelled" {
		t.Errorf("cancel %v %v", c1, c2)
	}
	if _, isErr := call(t, cs, "get_booking", map[string]any{"booking_id": "B-9"}); !isErr {
		t.Error("get_booking of a missing id is no error")
	}
	if _, isErr := call(t, cs, "create_booking", map[string]any{"guest": "Ada"}); !isErr {
		t.Error("create_booking without date and room is no error")
	}
	lines := strings.Split(strings.TrimSpace(state.String()), "\n")
	if len(lines) != 6 { // 4 creates (one replayed) and 2 cancels; reads are not executions
		t.Fatalf("%d state lines, want 6:\n%s", len(lines), state.String())
	}
	var last Execution
	json.Unmarshal([]byte(lines[5]), &last)
	if last.Seq != 6 || last.Tool != "cancel_booking" {
		t.Errorf("last execution %+v", last)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }

func TestBackendStateFileFailureStopsWrites(t *testing.T) {
	cs := connect(t, New(failingWriter{}))
	args := map[string]any{"guest": "Ada", "date": "2026-11-03", "room": "double"}
	for i := range 2 {
		if _, isErr := call(t, cs, "create_booking", args); !isErr {
			t.Errorf("call %d: no error although the ground truth cannot be written", i+1)
		}
	}
}

// TestReadCounts: the state file's counts — a replayed key is an execution
// but no booking; a missing file is an empty backend; a torn or foreign
// line is an error.
func TestReadCounts(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state.jsonl")
	if c, err := ReadCounts(path); err != nil || c != (Counts{}) {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	f, _ := os.Create(path)
	b := New(f)
	cs := connect(t, b)
	args := map[string]any{"guest": "Ada", "date": "2027-01-02", "room": "double", "idempotency_key": "k"}
	call(t, cs, "create_booking", args)
	call(t, cs, "create_booking", args)
	args["idempotency_key"] = "j"
	booked, _ := call(t, cs, "create_booking", args)
	call(t, cs, "cancel_booking", map[string]any{"booking_id": booked["booking_id"]})
	f.Close()
	c, err := ReadCounts(path)
	if want := (Counts{Bookings: 2, Replayed: 1, Cancellations: 1, Executions: 4}); err != nil || c != want {
		t.Errorf("counts %+v %v, want %+v", c, err, want)
	}
	if got := b.Counts(); got != c {
		t.Errorf("Backend.Counts %+v, the state file counts %+v", got, c)
	}
	os.WriteFile(path, []byte(`{"seq":1,"tool":"create_booking","result":{}}`+"\n"+`{"seq":2,"to`), 0o666)
	if _, err := ReadCounts(path); err == nil || !strings.Contains(err.Error(), "line 2 has no end") {
		t.Errorf("torn line: %v", err)
	}
	os.WriteFile(path, []byte("hello\n"), 0o666)
	if _, err := ReadCounts(path); err == nil || !strings.Contains(err.Error(), "line 1 is not an execution") {
		t.Errorf("foreign line: %v", err)
	}
}

// TestNoKeyReplayBooksEveryCall: the benchmark's backend (behaviour §10) —
// a repeated idempotency key books again and is listed as doing so; every
// create is an execution and a booking, in memory and in the state file.
func TestNoKeyReplayBooksEveryCall(t *testing.T) {
	var state bytes.Buffer
	b := New(&state)
	cs := connectServer(t, b.ServerWith("test", Options{NoKeyReplay: true}))
	tools, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	listed := []byte("create_booking is not listed")
	for _, tl := range tools.Tools {
		if tl.Name == CreateTool {
			listed, _ = json.Marshal(tl)
		}
	}
	for _, want := range []string{"every call books again, with or without idempotency_key", "a repeated key books again"} {
		if !strings.Contains(string(listed), want) {
			t.Errorf("create_booking is listed without %q: %s", want, listed)
		}
	}
	if strings.Contains(string(listed), "returns the booking made with it") {
		t.Errorf("create_booking still promises a replay: %s", listed)
	}
	args := map[string]any{"guest": "Ada", "date": "2026-11-03", "room": "double", "idempotency_key": "k"}
	first, _ := call(t, cs, CreateTool, args)
	again, _ := call(t, cs, CreateTool, args)
	if first["booking_id"] != "B-0001" || again["booking_id"] != "B-0002" || again["replayed"] != false || again["idempotency_key"] != "k" {
		t.Errorf("the same key twice: %v %v, want B-0001 and B-0002, neither replayed", first, again)
	}
	found, _ := call(t, cs, FindTool, map[string]any{"guest": "Ada", "date": "2026-11-03"})
	if n := len(found["bookings"].([]any)); n != 2 {
		t.Errorf("find_bookings found %d, want 2", n)
	}
	if want := (Counts{Bookings: 2, Executions: 2}); b.Counts() != want {
		t.Errorf("counts %+v, want %+v", b.Counts(), want)
	}
	if lines := strings.Count(state.String(), "\n"); lines != 2 {
		t.Errorf("%d state lines, want 2:\n%s", lines, state.String())
	}
}

// TestBeforeCallRunsOncePerToolCall: the per-call hook the benchmark's
// clock uses runs once for every tool call a handler serves, for each
// tool, and not for listing or for arguments the SDK refused.
func TestBeforeCallRunsOncePerToolCall(t *testing.T) {
	for _, o := range []Options{{}, {NoKeyReplay: true}} {
		t.Run(fmt.Sprintf("NoKeyReplay=%v", o.NoKeyReplay), func(t *testing.T) {
			var calls atomic.Int64
			o.BeforeCall = func() { calls.Add(1) }
			cs := connectServer(t, New(nil).ServerWith("test", o))
			if _, err := cs.ListTools(context.Background(), nil); err != nil {
				t.Fatal(err)
			}
			steps := []struct {
				tool string
				args map[string]any
				want int64
			}{
				{CreateTool, map[string]any{"guest": "Ada", "date": "2026-11-03", "room": "double"}, 1},
				{FindTool, map[string]any{"guest": "Ada"}, 2},
				{"get_booking", map[string]any{"booking_id": "B-0001"}, 3},
				{"get_booking", map[string]any{"booking_id": "B-9"}, 4}, // a tool error is still a call
				{"cancel_booking", map[string]any{"booking_id": "B-0001"}, 5},
				{CreateTool, map[string]any{"guest": "Ada"}, 5}, // refused by the input schema
			}
			for _, st := range steps {
				call(t, cs, st.tool, st.args)
				if got := calls.Load(); got != st.want {
					t.Errorf("after %s %v: BeforeCall ran %d times, want %d", st.tool, st.args, got, st.want)
				}
			}
		})
	}
}

// TestOnlyServesTheNamedTools: Options.Only lists and serves the named
// tools and no other; NoSearch still leaves find_bookings out.
func TestOnlyServesTheNamedTools(t *testing.T) {
	tests := []struct {
		name string
		o    Options
		want []string
	}{
		{"every tool", Options{}, []string{"cancel_booking", CreateTool, FindTool, "get_booking"}},
		{"no search", Options{NoSearch: true}, []string{"cancel_booking", CreateTool, "get_booking"}},
		{"the benchmark's two", Options{Only: []string{CreateTool, FindTool}}, []string{CreateTool, FindTool}},
		{"only find, no search", Options{Only: []string{FindTool}, NoSearch: true}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := connectServer(t, New(nil).ServerWith("test", tc.o))
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, tl := range res.Tools {
				got = append(got, tl.Name)
			}
			if !slices.Equal(got, tc.want) {
				t.Errorf("listed %v, want %v", got, tc.want)
			}
			for _, name := range []string{"cancel_booking", CreateTool, FindTool, "get_booking"} {
				_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: map[string]any{}})
				if unknown := err != nil && strings.Contains(err.Error(), "unknown tool"); unknown == slices.Contains(tc.want, name) {
					t.Errorf("calling %s: %v (listed: %v)", name, err, slices.Contains(tc.want, name))
				}
			}
		})
	}
}
