package refagent

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cuonztech/agent-harness/internal/fault"
)

// Agent is a deterministic reference agent of the benchmark
// (agent-harness benchmark), run in process on the benchmark's fake clock.
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
		return s.CallTool(ctx, &mcp.CallToolParams{Name: t.Write, Arguments: map[string]any{
			"guest": t.Guest, "date": t.Date, "room": t.Room, "idempotency_key": t.Key,
		}})
	}
	res, err := write()
	if broken(err) {
		return err
	}
	f := classifyAnswer(res, err)
	switch f.kind {
	case benchOK:
		return nil
	case benchRateLimited:
		t.Wait(f.retryAfter)
		_, err := write()
		return brokenOnly(err)
	case benchUnknown:
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

// find searches the task's booking by guest and date, without an id the
// agent may never have received; a search that fails is lookupUnknown with
// the call's error.
func find(ctx context.Context, s Caller, t Task) (lookup, error) {
	res, err := s.CallTool(ctx, &mcp.CallToolParams{Name: t.Read, Arguments: map[string]any{
		"guest": t.Guest, "date": t.Date,
	}})
	if err != nil || res.IsError {
		return lookupUnknown, err
	}
	found, _ := bookingsIn(res)
	return found, nil
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
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: t.Write, Arguments: args})
		if broken(err) {
			return err
		}
	}
	return nil
}

// benchmarkKind is how the benchmark's careful agent reads an answer.
type benchmarkKind int

const (
	benchOK benchmarkKind = iota
	benchRateLimited
	benchUnknown
	benchFailed
)

type benchmarkAnswer struct {
	kind       benchmarkKind
	retryAfter time.Duration
}

// classifyAnswer reads a tool answer the way a careful client would: the
// machine-readable retry_after first, then the words.
func classifyAnswer(res *mcp.CallToolResult, err error) benchmarkAnswer {
	if err != nil {
		return benchmarkAnswer{kind: benchUnknown}
	}
	if !res.IsError {
		return benchmarkAnswer{kind: benchOK}
	}
	if sec, ok := structuredRetryAfter(res.StructuredContent); ok {
		return benchmarkAnswer{kind: benchRateLimited, retryAfter: time.Duration(sec) * time.Second}
	}
	// For a tool with an outputSchema the proxy's 429 has it in _meta.
	if sec, ok := secondsIn(res.Meta[fault.MetaRetryAfter]); ok {
		return benchmarkAnswer{kind: benchRateLimited, retryAfter: time.Duration(sec) * time.Second}
	}
	text := text(res)
	if m := retryAfterText.FindStringSubmatch(text); m != nil {
		if sec, err := strconv.ParseInt(m[1], 10, 32); err == nil {
			return benchmarkAnswer{kind: benchRateLimited, retryAfter: time.Duration(sec) * time.Second}
		}
	}
	lower := strings.ToLower(text)
	if strings.Contains(lower, "timed out") || strings.Contains(lower, "outcome is unknown") ||
		strings.Contains(lower, "upstream_unavailable") {
		return benchmarkAnswer{kind: benchUnknown}
	}
	return benchmarkAnswer{kind: benchFailed}
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

func brokenOnly(err error) error {
	if broken(err) {
		return err
	}
	return nil
}
