package selftest

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/refagent"
)

// Tool names of the simulated backend.
const (
	// WriteTool creates a booking; it is classified as a write by the default
	// pattern create_* and accepts the key field idempotency_key.
	WriteTool = "create_booking"
	// ReadTool finds bookings by guest and date, without a booking id.
	ReadTool = "search_bookings"
)

// Caller is the reference agents' session seam, refagent.Caller: what
// session hands the agent.
type Caller = refagent.Caller

// Booking is one booking the backend executed.
type Booking struct {
	ID             string `json:"booking_id"`
	Guest          string `json:"guest"`
	Date           string `json:"date"`
	Room           string `json:"room"`
	IdempotencyKey string `json:"idempotency_key,omitempty"`
}

// bookingArgs are the arguments of create_booking and search_bookings.
type bookingArgs struct {
	Guest          string `json:"guest"`
	Date           string `json:"date"`
	Room           string `json:"room"`
	IdempotencyKey string `json:"idempotency_key"`
}

// Backend is the simulated booking system: a real go-sdk MCP server with one
// write tool and one read tool. It is deliberately not idempotent: every
// create_booking it receives executes, so its execution count is the ground
// truth the judge's report must match.
type Backend struct {
	clock *Clock
	delay func() time.Duration

	mu       sync.Mutex
	bookings []Booking
}

// NewBackend returns a backend whose calls each advance clock by a random
// delay in [0, jitter] drawn from a generator seeded with seed (no delay
// when jitter is zero).
func NewBackend(clock *Clock, jitter time.Duration, seed uint64) *Backend {
	b := &Backend{clock: clock, delay: func() time.Duration { return 0 }}
	if jitter > 0 {
		rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var mu sync.Mutex
		b.delay = func() time.Duration {
			mu.Lock()
			defer mu.Unlock()
			return time.Duration(rng.Int64N(int64(jitter) + 1))
		}
	}
	return b
}

// Bookings returns a copy of the bookings executed so far.
func (b *Backend) Bookings() []Booking {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]Booking(nil), b.bookings...)
}

var (
	createSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"guest":{"type":"string","description":"guest name"},` +
		`"date":{"type":"string","description":"arrival date, YYYY-MM-DD"},` +
		`"room":{"type":"string","description":"room type"},` +
		`"idempotency_key":{"type":"string","description":"client-chosen key; reuse it when retrying"}},` +
		`"required":["guest","date","room"]}`)
	searchSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"guest":{"type":"string","description":"guest name"},` +
		`"date":{"type":"string","description":"arrival date, YYYY-MM-DD"}},` +
		`"required":["guest"]}`)
)

// Server returns a new MCP server serving the backend's tools. Each run
// connects one server session.
func (b *Backend) Server() *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "simulated-bookings", Version: "1.0.0"}, nil)
	s.AddTool(&mcp.Tool{
		Name:        WriteTool,
		Description: "Create a hotel booking. Not idempotent on its own: send idempotency_key.",
		InputSchema: createSchema,
	}, b.create)
	s.AddTool(&mcp.Tool{
		Name:        ReadTool,
		Description: "Find bookings by guest name and optional date.",
		InputSchema: searchSchema,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, b.search)
	return s
}

func (b *Backend) create(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b.clock.Advance(b.delay())
	var a bookingArgs
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil || a.Guest == "" || a.Date == "" || a.Room == "" {
		return errorResult("invalid arguments: guest, date and room are required"), nil
	}
	b.mu.Lock()
	bk := Booking{
		ID:    fmt.Sprintf("B-%04d", len(b.bookings)+1),
		Guest: a.Guest, Date: a.Date, Room: a.Room, IdempotencyKey: a.IdempotencyKey,
	}
	b.bookings = append(b.bookings, bk)
	b.mu.Unlock()
	return jsonResult(bk)
}

func (b *Backend) search(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	b.clock.Advance(b.delay())
	var a bookingArgs
	if err := json.Unmarshal(req.Params.Arguments, &a); err != nil || a.Guest == "" {
		return errorResult("invalid arguments: guest is required"), nil
	}
	found := []Booking{}
	b.mu.Lock()
	for _, bk := range b.bookings {
		if bk.Guest == a.Guest && (a.Date == "" || bk.Date == a.Date) {
			found = append(found, bk)
		}
	}
	b.mu.Unlock()
	return jsonResult(map[string]any{"bookings": found})
}

func jsonResult(v any) (*mcp.CallToolResult, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, fmt.Errorf("encoding result: %w", err)
	}
	return &mcp.CallToolResult{
		Content:           []mcp.Content{&mcp.TextContent{Text: string(raw)}},
		StructuredContent: json.RawMessage(raw),
	}, nil
}

func errorResult(msg string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: msg}}, IsError: true}
}
