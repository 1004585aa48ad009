// Package sampleserver is the booking backend of `agent-harness
// sample-server` (behaviour §9.5) and of `agent-harness benchmark` (behaviour
// §10, in process, Options.NoKeyReplay): a small go-sdk MCP server with one
// write that creates, one idempotent write that cancels and two reads, which
// records every execution as ground truth.
package sampleserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Tool names of the backend that its clients call by name.
const (
	// CreateTool creates a booking; it is classified as a write by the
	// default pattern create_* and accepts the key field idempotency_key.
	CreateTool = "create_booking"
	// FindTool finds bookings by guest and optional date, without a
	// booking id.
	FindTool = "find_bookings"
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

// unreplayedCreateArgs are CreateArgs as a server with NoKeyReplay lists
// them: the same fields, the key described as what it is there.
type unreplayedCreateArgs struct {
	Guest          string `json:"guest" jsonschema:"guest name"`
	Date           string `json:"date" jsonschema:"arrival date, YYYY-MM-DD"`
	Room           string `json:"room" jsonschema:"room type, e.g. double"`
	IdempotencyKey string `json:"idempotency_key,omitempty" jsonschema:"optional client-chosen key, recorded with the booking; a repeated key books again"`
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
	counts   Counts    // the executions so far, as ReadCounts reads them from state
	state    io.Writer // ground truth, one JSON line per execution; nil = none
	stateErr error
}

// New returns an empty backend that appends every execution to state (one
// JSON object per line, written before the answer is sent); state may be
// nil.
func New(state io.Writer) *Backend {
	return &Backend{byKey: map[string]*Booking{}, state: state}
}

// Counts returns the executions so far, counted as ReadCounts counts the
// state file's lines (an execution whose line could not be written
// included).
func (b *Backend) Counts() Counts {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.counts
}

// Options configure the MCP server of a backend. The zero value is the
// full server of `agent-harness sample-server`.
type Options struct {
	// NoSearch leaves find_bookings out: a booking can only be read by its
	// id with get_booking — the seed's "upstream not searchable by
	// guest/date" condition, where an agent that lost the id to a timeout
	// cannot check what happened (behaviour §9.5).
	NoSearch bool
	// NoKeyReplay makes create_booking book again for every call, a
	// repeated idempotency_key too (the key is recorded with the booking,
	// never looked up): the benchmark's deliberately non-idempotent
	// backend, whose count of bookings is the ground truth the judge's
	// report must match (behaviour §10). Zero: a repeated key returns the
	// booking made with it.
	NoKeyReplay bool
	// BeforeCall, when not nil, runs at the start of every tool call the
	// server handles (once the SDK has checked the arguments against the
	// tool's input schema), before the backend's lock is taken: the
	// benchmark advances its run's fake clock by one jitter draw there. It
	// may be called from several goroutines at once.
	BeforeCall func()
	// Only, when not nil, names the tools the server lists and serves
	// (of create_booking, get_booking, find_bookings and cancel_booking;
	// NoSearch still leaves find_bookings out): the benchmark serves the two
	// its reference agents call, which keeps a run's listing small. Nil:
	// every tool.
	Only []string
}

// schemas are the tools' JSON schemas, inferred from the argument and
// result types once for every server: the benchmark builds one server per
// run, and inferring them again took about half of a run's time.
var schemas = mcp.NewSchemaCache()

// Server returns the MCP server of the backend with every tool.
func (b *Backend) Server(version string) *mcp.Server { return b.ServerWith(version, Options{}) }

// ServerWith returns the MCP server of the backend configured by o.
func (b *Backend) ServerWith(version string, o Options) *mcp.Server {
	s := mcp.NewServer(&mcp.Implementation{Name: "agent-harness-sample-bookings", Version: version},
		&mcp.ServerOptions{SchemaCache: schemas})
	if o.serves(CreateTool) {
		b.addCreate(s, o)
	}
	if o.serves("get_booking") {
		mcp.AddTool(s, &mcp.Tool{
			Name:        "get_booking",
			Description: "Get one booking by its id.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, hooked(o.BeforeCall, b.get))
	}
	if o.serves(FindTool) {
		mcp.AddTool(s, &mcp.Tool{
			Name:        FindTool,
			Description: "Find bookings by guest name and optional date, without an id.",
			Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
		}, hooked(o.BeforeCall, b.find))
	}
	if o.serves("cancel_booking") {
		mcp.AddTool(s, &mcp.Tool{
			Name:        "cancel_booking",
			Description: "Cancel a booking by its id. Cancelling a cancelled booking changes nothing.",
			Annotations: &mcp.ToolAnnotations{IdempotentHint: true, DestructiveHint: ptr(true)},
		}, hooked(o.BeforeCall, b.cancel))
	}
	return s
}

// serves reports whether a server configured by o lists the tool name.
func (o Options) serves(name string) bool {
	return (o.Only == nil || slices.Contains(o.Only, name)) && !(o.NoSearch && name == FindTool)
}

// addCreate adds create_booking to s: with key replay, or, with
// o.NoKeyReplay, booking again for every call and listed as doing so.
func (b *Backend) addCreate(s *mcp.Server, o Options) {
	if o.NoKeyReplay {
		mcp.AddTool(s, &mcp.Tool{
			Name:        CreateTool,
			Description: "Create a hotel booking. Not idempotent: every call books again, with or without idempotency_key.",
		}, hooked(o.BeforeCall, func(_ context.Context, _ *mcp.CallToolRequest, a unreplayedCreateArgs) (*mcp.CallToolResult, CreateResult, error) {
			return b.create(CreateArgs(a), false)
		}))
		return
	}
	mcp.AddTool(s, &mcp.Tool{
		Name: CreateTool,
		Description: "Create a hotel booking. Not idempotent unless you send idempotency_key: " +
			"every call without a key books again.",
	}, hooked(o.BeforeCall, func(_ context.Context, _ *mcp.CallToolRequest, a CreateArgs) (*mcp.CallToolResult, CreateResult, error) {
		return b.create(a, true)
	}))
}

// hooked returns h, run after before when before is not nil.
func hooked[In, Out any](before func(), h mcp.ToolHandlerFor[In, Out]) mcp.ToolHandlerFor[In, Out] {
	if before == nil {
		return h
	}
	return func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		before()
		return h(ctx, req, in)
	}
}

func ptr[T any](v T) *T { return &v }

// errState stops every call once the state file could not be written:
// the ground truth must never silently miss an execution.
var errState = errors.New("the state file cannot be written")

// create books a; with replay, a repeated idempotency key returns the
// booking made with it instead.
func (b *Backend) create(a CreateArgs, replay bool) (*mcp.CallToolResult, CreateResult, error) {
	if a.Guest == "" || a.Date == "" || a.Room == "" {
		return nil, CreateResult{}, errors.New("invalid arguments: guest, date and room are required")
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.stateErr != nil {
		return nil, CreateResult{}, errState
	}
	if bk, ok := b.byKey[a.IdempotencyKey]; ok && replay && a.IdempotencyKey != "" {
		res := CreateResult{Booking: *bk, Replayed: true}
		return nil, res, b.record(CreateTool, a, res)
	}
	bk := &Booking{ID: fmt.Sprintf("B-%04d", len(b.bookings)+1), Guest: a.Guest, Date: a.Date, Room: a.Room,
		IdempotencyKey: a.IdempotencyKey, Status: "booked"}
	b.bookings = append(b.bookings, bk)
	if replay && a.IdempotencyKey != "" {
		b.byKey[a.IdempotencyKey] = bk
	}
	res := CreateResult{Booking: *bk}
	return nil, res, b.record(CreateTool, a, res)
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

// record counts one execution and appends it to the state file; b.mu is
// held.
func (b *Backend) record(tool string, args, result any) error {
	b.seq++
	replayed := false
	if r, ok := result.(CreateResult); ok {
		replayed = r.Replayed
	}
	b.counts.add(tool, replayed)
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
