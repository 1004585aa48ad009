package refagent

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// scripted is a Caller that answers from a script and records the calls.
type scripted struct {
	answers []func() (*mcp.CallToolResult, error)
	calls   []string // tool names, with "+key" when a key was sent
}

func (s *scripted) CallTool(_ context.Context, p *mcp.CallToolParams) (*mcp.CallToolResult, error) {
	name := p.Name
	if m, ok := p.Arguments.(map[string]any); ok {
		if _, ok := m["idempotency_key"]; ok {
			name += "+key"
		}
	}
	s.calls = append(s.calls, name)
	if len(s.answers) == 0 {
		return textRes(`{"booking_id":"B-0001"}`, false), nil
	}
	a := s.answers[0]
	s.answers = s.answers[1:]
	return a()
}

func textRes(text string, isErr bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}, IsError: isErr}
}

func ans(text string, isErr bool) func() (*mcp.CallToolResult, error) {
	return func() (*mcp.CallToolResult, error) { return textRes(text, isErr), nil }
}

var (
	okWrite   = ans(`{"booking_id":"B-0001"}`, false)
	timeout   = ans("Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown.", true)
	rate429   = ans("Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds.", true)
	rate429SC = func() (*mcp.CallToolResult, error) {
		r := textRes("Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds.", true)
		r.StructuredContent = map[string]any{"error": "rate_limited", "status": float64(429), "retry_after": float64(7)}
		return r, nil
	}
	rate429Meta = func() (*mcp.CallToolResult, error) {
		r := textRes("Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds.", true)
		r.Meta = mcp.Meta{"agent-harness/retryAfter": float64(9)}
		return r, nil
	}
	truncated = ans(`{"`, true)
	http500   = ans("Error: HTTP 500 Internal Server Error.", true)
	rpcError  = func() (*mcp.CallToolResult, error) { return nil, errors.New("calling tool: internal error") }
	found     = ans(`{"bookings":[{"booking_id":"B-0001","guest":"g","date":"d","room":"r"}]}`, false)
	notFound  = ans(`{"bookings":[]}`, false)
	readFails = ans("Error: HTTP 500 Internal Server Error.", true)
)

// The benchmark backend's tools (selftest.WriteTool, selftest.ReadTool).
const (
	w  = "create_booking"
	wk = w + "+key"
	r  = "find_bookings"
)

// benchmarkAgents are the benchmark's agents, as selftest runs them.
var benchmarkAgents = []Agent{Careful{}, Naive{}}

func TestCarefulBehaviour(t *testing.T) {
	tests := []struct {
		name    string
		answers []func() (*mcp.CallToolResult, error)
		want    []string
		waited  time.Duration
	}{
		{"success: one write", nil, []string{wk}, 0},
		{"F1 timeout, found: read, no re-send", []func() (*mcp.CallToolResult, error){timeout, found}, []string{wk, r}, 0},
		{"timeout, not found: still no re-send", []func() (*mcp.CallToolResult, error){timeout, notFound}, []string{wk, r}, 0},
		{"JSON-RPC error is unknown: read, no re-send", []func() (*mcp.CallToolResult, error){rpcError, notFound}, []string{wk, r}, 0},
		{"429 in words: wait 60 s, retry once", []func() (*mcp.CallToolResult, error){rate429, okWrite}, []string{wk, wk}, 60 * time.Second},
		{"429 structured retry_after wins", []func() (*mcp.CallToolResult, error){rate429SC, okWrite}, []string{wk, wk}, 7 * time.Second},
		{"429 _meta retry_after wins", []func() (*mcp.CallToolResult, error){rate429Meta, okWrite}, []string{wk, wk}, 9 * time.Second},
		{"429 twice: retries once only", []func() (*mcp.CallToolResult, error){rate429, rate429}, []string{wk, wk}, 60 * time.Second},
		{"500, not found: retry once", []func() (*mcp.CallToolResult, error){http500, notFound, okWrite}, []string{wk, r, wk}, 0},
		{"500, found: no retry", []func() (*mcp.CallToolResult, error){http500, found}, []string{wk, r}, 0},
		{"truncated, not found: retry once", []func() (*mcp.CallToolResult, error){truncated, notFound, okWrite}, []string{wk, r, wk}, 0},
		{"500, read fails: cannot check, no retry", []func() (*mcp.CallToolResult, error){http500, readFails}, []string{wk, r}, 0},
		{"500 twice: retries once only", []func() (*mcp.CallToolResult, error){http500, notFound, http500}, []string{wk, r, wk}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := &scripted{answers: tc.answers}
			var waited time.Duration
			err := Careful{}.Book(t.Context(), s, Task{Write: w, Read: r, Guest: "g", Date: "d", Room: "r", Key: "k",
				Wait: func(d time.Duration) { waited += d }})
			if err != nil {
				t.Fatalf("Book: %v", err)
			}
			if !slices.Equal(s.calls, tc.want) {
				t.Errorf("calls = %v, want %v", s.calls, tc.want)
			}
			if waited != tc.waited {
				t.Errorf("waited %v, want %v", waited, tc.waited)
			}
		})
	}
}

func TestNaiveSendsEveryWriteTwiceWithoutKey(t *testing.T) {
	for _, first := range []struct {
		name string
		a    func() (*mcp.CallToolResult, error)
	}{{"ok", okWrite}, {"timeout", timeout}, {"429", rate429}, {"truncated", truncated}, {"500", http500}, {"rpc error", rpcError}} {
		t.Run(first.name, func(t *testing.T) {
			s := &scripted{answers: []func() (*mcp.CallToolResult, error){first.a}}
			if err := (Naive{}).Book(t.Context(), s, Task{Write: w, Read: r, Guest: "g", Date: "d", Room: "r", Key: "k",
				Wait: func(time.Duration) { t.Error("naive agent waited") }}); err != nil {
				t.Fatalf("Book: %v", err)
			}
			if want := []string{w, w}; !slices.Equal(s.calls, want) {
				t.Errorf("calls = %v, want %v", s.calls, want)
			}
		})
	}
}

func TestAgentStopsOnBrokenSession(t *testing.T) {
	broken := func() (*mcp.CallToolResult, error) { return nil, mcp.ErrConnectionClosed }
	for _, a := range benchmarkAgents {
		s := &scripted{answers: []func() (*mcp.CallToolResult, error){broken, broken}}
		err := a.Book(t.Context(), s, Task{Write: w, Read: r, Wait: func(time.Duration) {}})
		if !errors.Is(err, mcp.ErrConnectionClosed) {
			t.Errorf("%s: err = %v, want ErrConnectionClosed", a.Name(), err)
		}
		if len(s.calls) != 1 {
			t.Errorf("%s: %d calls after the session broke, want 1", a.Name(), len(s.calls))
		}
	}
}

func TestStructuredRetryAfterFromRawJSON(t *testing.T) {
	got, ok := structuredRetryAfter(json.RawMessage(`{"error":"rate_limited","status":429,"retry_after":60}`))
	if !ok || got != 60 {
		t.Errorf("structuredRetryAfter = %d, %v; want 60, true", got, ok)
	}
}

func FuzzClassifyAnswer(f *testing.F) {
	for _, s := range []string{"", `{"`, "Retry after 60 seconds.", "retry after 99999999999999999999 seconds", "timed out"} {
		f.Add(s, true)
	}
	f.Fuzz(func(t *testing.T, text string, isErr bool) {
		a := classifyAnswer(textRes(text, isErr), nil)
		if !isErr && a.kind != benchOK {
			t.Errorf("non-error answer classified %v", a.kind)
		}
		if a.retryAfter < 0 {
			t.Errorf("negative retry_after %v", a.retryAfter)
		}
	})
}
