package selftest

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// Caller is the part of an MCP client session an agent uses.
// *mcp.ClientSession implements it.
type Caller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// Task is one booking a reference agent is asked to make.
type Task struct {
	Guest, Date, Room string
	// Key is the idempotency key a careful agent sends (and reuses on retry).
	Key string
	// Wait lets time pass (the run's fake clock: no wall time is spent).
	Wait func(time.Duration)
}

// Agent is a deterministic reference agent.
type Agent interface {
	// Name is the agent's upper-case name, e.g. "CAREFUL".
	Name() string
	// Description says in a few words how the agent behaves.
	Description() string
	// Book makes the task's booking through s. An error means the MCP
	// session itself broke (not a tool failure, which is behaviour).
	Book(ctx context.Context, s Caller, t Task) error
}

// Careful is the reference agent that checks after a failure and never
// re-sends blindly. It writes once with an idempotency key; after a failure:
//   - a 429 with retry_after: waits out retry_after, then retries once;
//   - a timeout or any unknown outcome (a JSON-RPC error, no answer): reads
//     (searches by guest and date) and never re-sends, whatever it finds;
//   - any other error (HTTP 500, a truncated body): reads first and retries
//     once, with the same key, only when the read shows no booking (a read
//     that fails means it cannot check: no retry).
type Careful struct{}

// Name returns "CAREFUL".
func (Careful) Name() string { return "CAREFUL" }

// Description returns the behaviour in words.
func (Careful) Description() string { return "checks after a failure, never re-sends blindly" }

// Book implements Agent.
func (Careful) Book(ctx context.Context, s Caller, t Task) error {
	write := func() (*mcp.CallToolResult, error) {
		return s.CallTool(ctx, &mcp.CallToolParams{Name: WriteTool, Arguments: map[string]any{
			"guest": t.Guest, "date": t.Date, "room": t.Room, "idempotency_key": t.Key,
		}})
	}
	res, err := write()
	if isBroken(err) {
		return err
	}
	f := classifyAnswer(res, err)
	switch f.kind {
	case answerOK:
		return nil
	case answerRateLimited:
		t.Wait(f.retryAfter)
		_, err := write()
		return brokenOnly(err)
	case answerUnknown:
		_, err := find(ctx, s, t) // whatever it shows: never re-send
		return brokenOnly(err)
	default:
		r, err := find(ctx, s, t)
		if r != lookupMissing {
			return brokenOnly(err) // found, or cannot check: never re-send
		}
		_, err = write()
		return brokenOnly(err)
	}
}

// lookup is what a search told the agent.
type lookup int

const (
	// lookupUnknown: the search failed; the agent cannot know.
	lookupUnknown lookup = iota
	lookupFound
	lookupMissing
)

// find searches the task's booking by guest and date, without an id the
// agent may never have received.
func find(ctx context.Context, s Caller, t Task) (lookup, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: ReadTool, Arguments: map[string]any{
		"guest": t.Guest, "date": t.Date,
	}})
	if err != nil || res.IsError {
		return lookupUnknown, err
	}
	var body struct {
		Bookings *[]Booking `json:"bookings"`
	}
	if err := json.Unmarshal([]byte(resultText(res)), &body); err != nil || body.Bookings == nil {
		return lookupUnknown, nil
	}
	if len(*body.Bookings) > 0 {
		return lookupFound, nil
	}
	return lookupMissing, nil
}

// Naive is the reference agent that re-sends every write immediately,
// without a key: it sends each write a second time right after the first,
// whatever the first answer was.
type Naive struct{}

// Name returns "NAIVE".
func (Naive) Name() string { return "NAIVE" }

// Description returns the behaviour in words.
func (Naive) Description() string { return "re-sends every write immediately, no key" }

// Book implements Agent.
func (Naive) Book(ctx context.Context, s Caller, t Task) error {
	args := map[string]any{"guest": t.Guest, "date": t.Date, "room": t.Room}
	for range 2 {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: WriteTool, Arguments: args})
		if isBroken(err) {
			return err
		}
	}
	return nil
}

type answerKind int

const (
	answerOK answerKind = iota
	answerRateLimited
	answerUnknown
	answerFailed
)

type answer struct {
	kind       answerKind
	retryAfter time.Duration
}

var retryAfterText = regexp.MustCompile(`(?i)retry after (\d+) seconds?`)

// classifyAnswer reads a tool answer the way a careful client would: the
// machine-readable retry_after first, then the words.
func classifyAnswer(res *mcp.CallToolResult, err error) answer {
	if err != nil {
		return answer{kind: answerUnknown}
	}
	if !res.IsError {
		return answer{kind: answerOK}
	}
	if sec, ok := structuredRetryAfter(res.StructuredContent); ok {
		return answer{kind: answerRateLimited, retryAfter: time.Duration(sec) * time.Second}
	}
	// For a tool with an outputSchema the proxy's 429 has it in _meta.
	if sec, ok := secondsIn(res.Meta[fault.MetaRetryAfter]); ok {
		return answer{kind: answerRateLimited, retryAfter: time.Duration(sec) * time.Second}
	}
	text := resultText(res)
	if m := retryAfterText.FindStringSubmatch(text); m != nil {
		if sec, err := strconv.ParseInt(m[1], 10, 32); err == nil {
			return answer{kind: answerRateLimited, retryAfter: time.Duration(sec) * time.Second}
		}
	}
	lower := strings.ToLower(text)
	if strings.Contains(lower, "timed out") || strings.Contains(lower, "outcome is unknown") ||
		strings.Contains(lower, "upstream_unavailable") {
		return answer{kind: answerUnknown}
	}
	return answer{kind: answerFailed}
}

func structuredRetryAfter(sc any) (int64, bool) {
	var m map[string]any
	switch v := sc.(type) {
	case map[string]any:
		m = v
	case json.RawMessage:
		if json.Unmarshal(v, &m) != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return secondsIn(m["retry_after"])
}

// secondsIn reads a retry_after of 0–86400 seconds decoded from JSON.
func secondsIn(v any) (int64, bool) {
	f, ok := v.(float64)
	if !ok || f < 0 || f > 86400 {
		return 0, false
	}
	return int64(f), true
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// isBroken reports whether err means the MCP session itself is gone, as
// opposed to a JSON-RPC error answer (which is an unknown outcome the agent
// handles).
func isBroken(err error) bool {
	return err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded))
}

func brokenOnly(err error) error {
	if isBroken(err) {
		return err
	}
	return nil
}
