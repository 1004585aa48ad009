package refagent

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Caller is the part of an MCP client session an agent uses: the seam that
// lets one reference agent run over a real session (Run: a stdio command or
// an HTTP endpoint) and in process on the benchmark's fake clock (the
// benchmark passes its own in-memory session). *mcp.ClientSession
// implements it.
type Caller interface {
	CallTool(ctx context.Context, params *mcp.CallToolParams) (*mcp.CallToolResult, error)
}

// Task is one booking a reference agent is asked to make.
type Task struct {
	// Write and Read are the booking server's tools: the write that
	// creates a booking and the search by guest and date.
	Write, Read       string
	Guest, Date, Room string
	// Key is the idempotency key a careful agent sends (and reuses on retry).
	Key string
	// Wait lets time pass (the benchmark's fake clock: no wall time is spent).
	Wait func(time.Duration)
}

// lookup is what a search told the agent.
type lookup int

const (
	// lookupUnknown: the search failed or was unreadable; the agent cannot
	// know.
	lookupUnknown lookup = iota
	lookupFound
	lookupMissing
)

// bookingsIn reads a search answer {"bookings":[{"booking_id":…},…]}: found
// or missing and how many, or lookupUnknown for another text.
func bookingsIn(res *mcp.CallToolResult) (lookup, int) {
	var body struct {
		Bookings *[]struct {
			ID string `json:"booking_id"`
		} `json:"bookings"`
	}
	if json.Unmarshal([]byte(text(res)), &body) != nil || body.Bookings == nil {
		return lookupUnknown, 0
	}
	if n := len(*body.Bookings); n > 0 {
		return lookupFound, n
	}
	return lookupMissing, 0
}

// retryAfterText finds a retry_after in an answer's words.
var retryAfterText = regexp.MustCompile(`(?i)retry after (\d+) seconds?`)

// text is the concatenated text content of a tool result.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			b.WriteString(t.Text)
		}
	}
	return b.String()
}

// broken reports whether err means the MCP session itself is gone, as
// opposed to a JSON-RPC error answer (which is an unknown outcome the agent
// handles).
func broken(err error) bool {
	return err != nil && (errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, context.Canceled) ||
		errors.Is(err, context.DeadlineExceeded))
}
