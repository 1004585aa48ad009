package sampleserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func connect(t *testing.T, b *Backend) *mcp.ClientSession {
	t.Helper()
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	if _, err := b.Server("test").Connect(ctx, st, nil); err != nil {
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
	os.WriteFile(path, []byte(`{"seq":1,"tool":"create_booking","result":{}}`+"\n"+`{"seq":2,"to`), 0o666)
	if _, err := ReadCounts(path); err == nil || !strings.Contains(err.Error(), "line 2 has no end") {
		t.Errorf("torn line: %v", err)
	}
	os.WriteFile(path, []byte("hello\n"), 0o666)
	if _, err := ReadCounts(path); err == nil || !strings.Contains(err.Error(), "line 1 is not an execution") {
		t.Errorf("foreign line: %v", err)
	}
}
