// Package sampleserver is the booking backend of `agent-harness
// sample-server` (behaviour §9.5): a small go-sdk MCP server with one write that
// creates, one idempotent write that cancels and two reads, which records
// every execution as ground truth.
package sampleserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Booking is one booking of the backend.
type Booking struct {
	ID             string `json:"booking_id" jsonschema:"the booking's id"`
	Guest          string `json:"guest" jsonschema:"guest name"`
	Date           string `json:"date" jsonschema:"arrival date, YYYY-MM-DD"`
	Room           string `json:"room" jsonschema:"room type"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"the key the booking was created with"`
	Status         string `json:"status" jsonschema:"booked or cancelled"`
}

// CreateArgs are the arguments of create_booking.
type CreateArgs struct {
	Guest          string `json:"guest" jsonschema:"guest name"`
	Date           string `json:"date" jsonschema:"arrival date, YYYY-MM-DD"`
	Room           string `json:"room" jsonschema:"room type, e.g. double"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"optional client-chosen key: a repeated key returns the booking made with it"`
}

// CreateResult is the structured result of create_booking.
type CreateResult struct {
	Booking
	// Replayed is true when the key had been used before and no new
	// booking was made.
	Replayed bool `json:"replayed" jsonschema:"true when the idempotency key was seen before and no new booking was made"`
}

// IDArgs are the arguments of get_booking and cancel_booking.
type IDArgs struct {
	ID string `json:"booking_id" jsonschema:"the booking's id"`
}

// FindArgs are the arguments of find_bookings.
type FindArgs struct {
	Guest string `json:"guest" jsonschema:"guest name"`
	Date  string `json:"date,omitempty" jsonschema:"optional arrival date, YYYY-MM-DD"`
}

// FindResult is the structured result of find_bookings.
type FindResult struct {
	Bookings []Booking `json:"bookings" jsonschema:"the matching bookings"`
}

// Execution is one line of the state file: a tool call the backend
// executed, with its result.
type Execution struct {
	Seq       int    `json:"seq"`
	Tool      string `json:"tool"`
	Arguments any    `json:"arguments"`
	Result    any    `json:"result,omitempty"`
	Error     string `json:"error,omitempty"`
}

// Backend is the booking state. The zero value is not usable; use New.
type Backend struct {
	mu       sync.Mutex
	bookings []*Booking
	byKey    map[string]*Booking
	seq      int
	state    io.Writer // ground truth, one JSON line per execution; nil = none
	stateErr error
}

// New returns an empty backend that appends every execution to state (one
// JSON object per line, written before the answer is sent); state may be
// nil.
func New(state io.Writer) *Backend {
	return &Backend{byKey: map[string]*Booking{}, state: state}
}

// Options configure the MCP server of a backend. The zero value is the
// full server.
type Options struct {
	// NoSearch leaves find_bookings out: a booking can only be read by its
	// id with get_booking — the seed's "upstream not searchable by
	// guest/date" condition, where an agent that lost the id to a timeout
	// cannot check what happened (behaviour §9.5).
	NoSearch bool
}

// Server returns the MCP server of the backend with every tool.
func (b *Backend) Server(version string) *mcp.Server { return b.ServerWith(version, Options{}) }

// ServerWith returns the MCP server of the backend configured by o.
func (b *Backend) ServerWith(version string, o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "agent-harness-sample-bookings", Version: version}, nil)
	mcp.AddTool(s, &mcp.Tool{
		Name: "create_booking",
		Description: "Create a hotel booking. Not idempotent unless you send idempotency_key: " +
			"every call without a key books again.",
	}, b.create)
	mcp.AddTool(s, &mcp.Tool{
		Name:        "get_booking",
		Description: "Get one booking by its id.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, b.get)
	if !o.NoSearch {
		mcp.AddTool(s, &mcp.Tool{
			Name:        "find_bookings",
			Description: "Find bookings by guest name and optional date, without an id.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, b.find)
	}
	mcp.AddTool(s, &mcp.Tool{
		Name:        "cancel_booking",
		Description: "Cancel a booking by its id. Cancelling a cancelled booking changes nothing.",
		Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(true)},
	}, b.cancel)
	return s
}

func ptr[T any](v T) *T { return &v }

// errState stops every call once the state file could not be written:
// the ground truth must never silently miss an execution.
var errState = errors.New("the state file cannot be written")

func (b *Backend) create(_ context.Context, _ *mcp.CallToolRequest, a CreateArgs) (*mcp.CallToolResult, CreateResult, error) {
	if a.Guest == "" || a.Date == "" || a.Room == "" {
		return nil, CreateResult{}, errors.New("invalid arguments: guest, date and room are required")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stateErr != nil {
		return nil, CreateResult{}, errState
	}
	if bk, ok := b.byKey[a.IdempotencyKey]; ok && a.IdempotencyKey != "" {
		res := CreateResult{Booking: *bk, Replayed: true}
		return nil, res, b.record("create_booking", a, res)
	}
	bk := &Booking{ID: fmt.Sprintf("B-%04d", len(b.bookings)+1), Guest: a.Guest, Date: a.Date, Room: a.Room,
		IdempotencyKey: a.IdempotencyKey, Status: "booked"}
	b.bookings = append(b.bookings, bk)
	if a.IdempotencyKey != "" {
		b.byKey[a.IdempotencyKey] = bk
	}
	res := CreateResult{Booking: *bk}
	return nil, res, b.record("create_booking", a, res)
}

func (b *Backend) get(_ context.Context, _ *mcp.CallToolRequest, a IDArgs) (*mcp.CallToolResult, Booking, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, bk := range b.bookings {
		if bk.ID == a.ID {
			return nil, *bk, nil
		}
	}
	return nil, Booking{}, fmt.Errorf("no booking %q", a.ID)
}

func (b *Backend) find(_ context.Context, _ *mcp.CallToolRequest, a FindArgs) (*mcp.CallToolResult, FindResult, error) {
	if a.Guest == "" {
		return nil, FindResult{}, errors.New("invalid arguments: guest is required")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	res := FindResult{Bookings: []Booking{}}
	for _, bk := range b.bookings {
		if bk.Guest == a.Guest && (a.Date == "" || bk.Date == a.Date) {
			res.Bookings = append(res.Bookings, *bk)
		}
	}
	return nil, res, nil
}

func (b *Backend) cancel(_ context.Context, _ *mcp.CallToolRequest, a IDArgs) (*mcp.CallToolResult, Booking, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stateErr != nil {
		return nil, Booking{}, errState
	}
	for _, bk := range b.bookings {
		if bk.ID == a.ID {
			bk.Status = "cancelled"
			return nil, *bk, b.record("cancel_booking", a, *bk)
		}
	}
	return nil, Booking{}, fmt.Errorf("no booking %q", a.ID)
}

// record appends one execution to the state file; b.mu is held.
func (b *Backend) record(tool string, args, result any) error {
	b.seq++
	if b.state == nil {
		return nil
	}
	line, err := json.Marshal(Execution{Seq: b.seq, Tool: tool, Arguments: args, Result: result})
	if err == nil {
		_, err = b.state.Write(append(line, '\n'))
	}
	if err != nil {
		b.stateErr = fmt.Errorf("writing the state file: %w", err)
		return b.stateErr
	}
	return nil
}
