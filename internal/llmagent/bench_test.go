package llmagent

import (
	"context"
	"strings"
	"testing"
)

// instantModel answers at once: the provider's own latency is zero, so
// what a model call costs is the loop's (SPEC §22: ≤ 5 ms).
type instantModel struct{}

func (instantModel) ErrorFlag() bool { return false }
func (instantModel) Call(context.Context, *Request) (*Response, error) {
	return &Response{Text: "ok", InputTokens: 1, OutputTokens: 1}, nil
}

// BenchmarkModelCall is the loop's cost of one model call with a
// conversation of 12 messages and the sample server's 4 tools: against an
// in-process model (the loop alone), and against a fake Chat Completions or
// Messages server on loopback through the SDK (request building, JSON both
// ways, HTTP; the fake's own work included, so an upper bound).
func BenchmarkModelCall(b *testing.B) {
	f := newFake(b, func(int, wireTurn) fakeAnswer { return fakeAnswer{Text: "ok"} })
	for _, c := range []struct {
		name  string
		model Model
	}{
		{"in-process", instantModel{}},
		{"openai-sdk-loopback", NewChatCompletions(f.URL+"/v1", "k", "m", nil)},
		{"anthropic-sdk-loopback", NewMessages(f.URL, "k", "m", nil)},
	} {
		b.Run(c.name, func(b *testing.B) {
			l := &loop{o: withDefaults(Options{Model: c.model, ShowIsError: true}), t: &Transcript{}}
			schema := map[string]any{"type": "object", "properties": map[string]any{"guest": map[string]any{"type": "string"}}}
			for _, n := range []string{"create_booking", "get_booking", "find_bookings", "cancel_booking"} {
				l.tools = append(l.tools, Tool{Name: n, Description: "tool " + n, InputSchema: schema})
			}
			l.add(Message{Role: "system", Content: strings.Repeat("Be careful. ", 20)})
			for i := 0; i < 4; i++ {
				l.add(Message{Role: "user", Content: "Book a double room for Ada Lovelace on 2026-11-03."})
				l.add(Message{Role: "assistant", ToolCalls: []ToolCall{{ID: "c" + itoa(i), Name: "create_booking", Arguments: `{"guest":"Ada Lovelace"}`}}})
				l.add(Message{Role: "tool", ToolCallID: "c" + itoa(i), Content: ErrorPrefix + f1Text})
			}
			ctx := context.Background()
			for b.Loop() {
				l.t.ModelCalls = l.t.ModelCalls[:0]
				if _, err := l.callModel(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
