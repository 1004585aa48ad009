package llmagent

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// wireTurn is what a fake provider read from one request: the tools it was
// offered and the last tool result, as the wire carried them.
type wireTurn struct {
	Tools      []string
	ResultText string // the last message's tool result text; "" if none
	IsError    *bool  // Anthropic's is_error on it; nil when absent
	Users      int    // user text messages so far
	Calls      int    // tool calls of the assistant so far
}

// fakeAnswer is what the fake model says: text, or one tool call.
type fakeAnswer struct {
	Text, Tool, Args string
	Status           int    // an HTTP error status instead of an answer
	RetryAfter       string // its Retry-After header
	Raw              string // a raw body instead of a well-formed answer
	Hang             bool   // never answer (until the request is cancelled)
}

// fakeServer is a fake LLM server speaking Chat Completions (/chat/completions
// under /v1) or Messages (/v1/messages): it records every request body and
// decides each answer from what it received.
type fakeServer struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []map[string]any
	decide func(n int, w wireTurn) fakeAnswer
}

func newFake(t testing.TB, decide func(n int, w wireTurn) fakeAnswer) *fakeServer {
	f := &fakeServer{decide: decide}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeServer) requests() []map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]map[string]any(nil), f.bodies...)
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body map[string]any
	if err := json.Unmarshal(b, &body); err != nil {
		http.Error(w, "bad json", 400)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, body)
	n := len(f.bodies)
	f.mu.Unlock()
	anthropic := strings.HasSuffix(r.URL.Path, "/v1/messages")
	if !anthropic && r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "unknown path "+r.URL.Path, 404)
		return
	}
	a := f.decide(n, readTurn(body, anthropic))
	switch {
	case a.Hang:
		<-r.Context().Done()
		return
	case a.Status != 0:
		if a.RetryAfter != "" {
			w.Header().Set("Retry-After", a.RetryAfter)
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(a.Status)
		io.WriteString(w, `{"error":{"type":"rate_limit_error","message":"slow down"}}`)
		return
	case a.Raw != "":
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, a.Raw)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if anthropic {
		content := []any{}
		if a.Text != "" {
			content = append(content, map[string]any{"type": "text", "text": a.Text})
		}
		stop := "end_turn"
		if a.Tool != "" {
			content = append(content, map[string]any{"type": "tool_use", "id": "toolu_" + itoa(n), "name": a.Tool, "input": json.RawMessage(a.Args)})
			stop = "tool_use"
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "msg_" + itoa(n), "type": "message", "role": "assistant", "model": body["model"],
			"content": content, "stop_reason": stop, "usage": map[string]any{"input_tokens": 10, "output_tokens": 3}})
		return
	}
	msg := map[string]any{"role": "assistant", "content": a.Text}
	finish := "stop"
	if a.Tool != "" {
		msg["tool_calls"] = []any{map[string]any{"id": "call_" + itoa(n), "type": "function", "function": map[string]any{"name": a.Tool, "arguments": a.Args}}}
		finish = "tool_calls"
	}
	json.NewEncoder(w).Encode(map[string]any{"id": "cc_" + itoa(n), "object": "chat.completion", "created": 1, "model": body["model"],
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}},
		"usage":   map[string]any{"prompt_tokens": 10, "completion_tokens": 3, "total_tokens": 13}})
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// readTurn reads a request as the provider's wire format has it.
func readTurn(body map[string]any, anthropic bool) wireTurn {
	var w wireTurn
	tools, _ := body["tools"].([]any)
	for _, t := range tools {
		t := t.(map[string]any)
		if fn, ok := t["function"].(map[string]any); ok {
			w.Tools = append(w.Tools, fn["name"].(string))
		} else {
			w.Tools = append(w.Tools, t["name"].(string))
		}
	}
	msgs, _ := body["messages"].([]any)
	for i, m := range msgs {
		m := m.(map[string]any)
		last := i == len(msgs)-1
		switch {
		case anthropic:
			blocks, _ := m["content"].([]any)
			for _, b := range blocks {
				b := b.(map[string]any)
				switch b["type"] {
				case "text":
					if m["role"] == "user" {
						w.Users++
					}
				case "tool_use":
					w.Calls++
				case "tool_result":
					if last {
						w.ResultText = ""
						for _, c := range b["content"].([]any) {
							w.ResultText += c.(map[string]any)["text"].(string)
						}
						w.IsError = nil
						if v, ok := b["is_error"].(bool); ok {
							w.IsError = &v
						}
					}
				}
			}
		default:
			switch m["role"] {
			case "user":
				w.Users++
			case "assistant":
				tc, _ := m["tool_calls"].([]any)
				w.Calls += len(tc)
			case "tool":
				if last {
					w.ResultText, _ = m["content"].(string)
				}
			}
		}
	}
	return w
}

// testBackend is an in-process MCP server with the sample server's two
// booking tools (create_booking answering as the test says), a tool with a
// name the providers refuse, a huge, a hanging tool and an audit tool.
type testBackend struct {
	mu       sync.Mutex
	calls    []string // MCP tool names called, in order
	metas    []any    // each call's _meta["agent-harness/toolCallId"] as received
	bookings int
	create   func(n int) *mcp.CallToolResult // nil = book
}

func (b *testBackend) record(name string) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls = append(b.calls, name)
	n := 0
	for _, c := range b.calls {
		if c == name {
			n++
		}
	}
	return n
}

func (b *testBackend) called() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.calls...)
}

func text(s string, isError bool) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}, IsError: isError}
}

const f1Text = "Error: the request timed out before the server answered (timeout after 30000 ms). The outcome is unknown."

func (b *testBackend) session(t *testing.T) *mcp.ClientSession {
	s := mcp.NewServer(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	obj := map[string]any{"type": "object"}
	add := func(name string, h func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error)) {
		s.AddTool(&mcp.Tool{Name: name, Description: "tool " + name, InputSchema: obj}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			b.mu.Lock()
			b.metas = append(b.metas, req.Params.Meta[ToolCallIDMeta])
			b.mu.Unlock()
			return h(ctx, req)
		})
	}
	add("create_booking", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		n := b.record("create_booking")
		b.mu.Lock()
		b.bookings++ // executed, whatever the answer says (a ghost write)
		b.mu.Unlock()
		if b.create != nil {
			if r := b.create(n); r != nil {
				return r, nil
			}
		}
		return text(`{"booking_id":"B-000`+itoa(n)+`"}`, false), nil
	})
	add("find_bookings", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.record("find_bookings")
		b.mu.Lock()
		defer b.mu.Unlock()
		list := "[]"
		if b.bookings > 0 {
			list = `[{"booking_id":"B-0001"}]`
		}
		return text(`{"bookings":`+list+`}`, false), nil
	})
	add("weird.name/tool", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.record("weird.name/tool")
		return text("weird ok", false), nil
	})
	add("big", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.record("big")
		return text(strings.Repeat("x", 2<<20), false), nil
	})
	add("hang", func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.record("hang")
		<-ctx.Done()
		return nil, ctx.Err()
	})
	add("rpcerror", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.record("rpcerror")
		return nil, errors.New("backend exploded")
	})
	add("cuonztech__get_report", func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		b.record("cuonztech__get_report")
		return text("the truth", false), nil
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := s.Connect(context.Background(), st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "1"}, nil).Connect(context.Background(), ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close(); ss.Wait() })
	return cs
}
