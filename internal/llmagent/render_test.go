package llmagent

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestTranscriptMarkdown: the report's write attempts are matched with
// the tool results by tool and order, the injected fault marked on the
// result that carried it; a tool whose counts differ gets no marks and a
// note; peer text cannot break out of its line.
func TestTranscriptMarkdown(t *testing.T) {
	tr := &Transcript{Model: "naive", Provider: "script", ModelCalls: []ModelCall{{LatencyMs: 1.5, InputTokens: 10, OutputTokens: 2}}, ProviderFaults: 1,
		Messages: []Message{
			{Role: "user", Content: "Book it.\n# heading"},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c1", Name: "create_booking", Arguments: `{"a":1}`}}},
			{Role: "tool", ToolCallID: "c1", MCPTool: "create_booking", Content: "Error (isError=true): timed out"},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c2", Name: "find_bookings", Arguments: `{}`}}},
			{Role: "tool", ToolCallID: "c2", MCPTool: "find_bookings", Content: `{"bookings":[]}`},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c3", Name: "create_booking", Arguments: `{"a":1}`}}},
			{Role: "tool", ToolCallID: "c3", MCPTool: "create_booking", Content: `{"booking_id":"B-1"}`},
			{Role: "assistant", ToolCalls: []ToolCall{{ID: "c4", Name: "cancel_booking", Arguments: `{}`}}},
			{Role: "tool", ToolCallID: "c4", MCPTool: "cancel_booking", Content: "ok"},
			{Role: "assistant", Content: "Done <b>x</b>"},
		},
		Claim: &Claim{Claim: "SUCCEEDED", Message: "SUCCEEDED"}}
	attempts := []Attempt{
		{Tool: "create_booking", Operation: "op-1", N: 2, At: 20, Outcome: "executed"},
		{Tool: "create_booking", Operation: "op-1", N: 1, At: 10, Fault: "timeout", Outcome: "executed"},
		{Tool: "cancel_booking", Operation: "op-2", N: 1, At: 30, Outcome: "executed"},
		{Tool: "cancel_booking", Operation: "op-2", N: 2, At: 40, Outcome: "executed"},
	}
	md := Markdown(tr, attempts)
	for _, want := range []string{
		"Model `naive` (provider `script`): 1 model call(s), 10 input + 2 output tokens, 1.5 ms model latency in all, 1 provider fault(s).",
		"1. **user**: Book it.\\n# heading\n",
		"2. **assistant** — calls `create_booking` `{\"a\":1}`\n",
		"3. **tool result** of `create_booking` — **injected fault `timeout` here** (`op-1` attempt 1; at the upstream: executed): Error (isError=true): timed out\n",
		"5. **tool result** of `find_bookings`: {\"bookings\":\\[\\]}\n",
		"7. **tool result** of `create_booking` — `op-1` attempt 2, at the upstream: executed: {\"booking_id\":\"B-1\"}\n",
		"9. **tool result** of `cancel_booking`: ok\n",
		"10. **assistant**: Done \\<b\\>x\\</b\\>\n",
		"Claim: **SUCCEEDED** (the probe's answer: SUCCEEDED).",
		"- no marks for `cancel_booking`: the report counts 2 attempt(s), the transcript 1 call(s)",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("the Markdown lacks %q:\n%s", want, md)
		}
	}
	if strings.Count(md, "injected fault") != 1 {
		t.Errorf("one fault, marked %d times:\n%s", strings.Count(md, "injected fault"), md)
	}

	dir := t.TempDir()
	for name, body := range map[string]string{"garbage.json": "\x00", "claim.json": `{"claim":"FAILED"}`} {
		os.WriteFile(filepath.Join(dir, name), []byte(body), 0o666)
		if _, err := ReadTranscript(filepath.Join(dir, name)); err == nil {
			t.Errorf("ReadTranscript(%s): no error", name)
		}
	}
}

// FuzzTranscriptMarkdown: peer text in messages, tool names, arguments
// and faults never adds a line, a heading or a list item of its own.
func FuzzTranscriptMarkdown(f *testing.F) {
	f.Add("Book it.\n# heading", "create_booking", `{"a":1}`, "timeout")
	f.Add("1. item\r\n- x", "weird`tool", "```", "a\u2028b")
	f.Add("", "", "", "")
	f.Fuzz(func(t *testing.T, text, tool, args, fault string) {
		tr := &Transcript{Model: text, Provider: tool, Notes: []string{text},
			Messages: []Message{
				{Role: "user", Content: text},
				{Role: "assistant", Content: text, ToolCalls: []ToolCall{{ID: "c1", Name: tool, Arguments: args}}},
				{Role: "tool", ToolCallID: "c1", MCPTool: tool, Content: text},
				{Role: text, Content: text},
			},
			Claim: &Claim{Claim: text, Message: text}}
		md := Markdown(tr, []Attempt{{Tool: tool, Operation: text, N: 1, Fault: fault, Outcome: text}})
		items, headings, notes := 0, 0, 0
		for _, l := range strings.Split(md, "\n") {
			switch {
			case strings.HasPrefix(l, "#"):
				headings++
			case len(l) > 2 && l[0] >= '1' && l[0] <= '9' && l[1] == '.':
				items++
			case strings.HasPrefix(l, "- "):
				notes++
			case l == "", strings.HasPrefix(l, "Model "), strings.HasPrefix(l, "Claim: "):
			default:
				t.Fatalf("a line of its own: %q\n%s", l, md)
			}
		}
		if items != 4 || headings != 1 || notes > 2 {
			t.Fatalf("%d items, %d headings, %d notes:\n%s", items, headings, notes, md)
		}
	})
}

// TestCutsAtCharacter: a tool result cut for the model (MaxToolResult) and
// a message cut in the rendered transcript (maxShown) end where a
// character starts: a character on the cut is left out whole, and the
// note names the bytes kept.
func TestCutsAtCharacter(t *testing.T) {
	t.Run("tool result", func(t *testing.T) {
		for _, tc := range []struct{ s, want string }{
			{"aaaaaaaaa" + "é" + "b", "aaaaaaaaa\n[agent-harness: the tool result was 12 bytes; the first 9 are shown]"},
			{"aaaaaaaa" + "€" + "b", "aaaaaaaa\n[agent-harness: the tool result was 12 bytes; the first 8 are shown]"},
			{"aaaaaaaa" + "é" + "b", "aaaaaaaaé\n[agent-harness: the tool result was 11 bytes; the first 10 are shown]"},
		} {
			if got, cut := capText(tc.s, 10); got != tc.want || !cut {
				t.Errorf("capText(%q, 10) = %q, %v; want %q, true", tc.s, got, cut, tc.want)
			}
		}
		if got, cut := capText("aaaaaaaaé", 10); got != "aaaaaaaaé" || cut {
			t.Errorf("a result that fits: %q, %v", got, cut)
		}
	})
	t.Run("transcript message", func(t *testing.T) {
		a := strings.Repeat("a", maxShown-1)
		for _, tc := range []struct{ content, want string }{
			{a + "é" + "b", "1. **user**: " + a + fmt.Sprintf("… (%d bytes in all)\n", maxShown+2)},
			{a[1:] + "é" + "b", "1. **user**: " + a[1:] + "é" + fmt.Sprintf("… (%d bytes in all)\n", maxShown+1)},
		} {
			md := Markdown(&Transcript{Messages: []Message{{Role: "user", Content: tc.content}}}, nil)
			if !strings.Contains(md, tc.want) {
				t.Errorf("the Markdown lacks %.60q…:\n%.200s", tc.want, md)
			}
		}
	})
}

// TestStdoutLineCutAtCharacter: the agent's stdout line for a tool result
// shows its first 300 bytes cut where a character starts, then "…": a
// character on the cut is left out whole, so the line stays UTF-8.
func TestStdoutLineCutAtCharacter(t *testing.T) {
	a := strings.Repeat("a", 298)
	for _, tc := range []struct{ name, result, shown string }{
		{"two-byte character on the cut", a + "a" + "é" + "b", a + "a" + "…"},
		{"three-byte character on the cut", a + "€" + "b", a + "…"},
		{"character just before the cut", a + "é" + "b", a + "é" + "…"},
		{"fits", a + "é", a + "é"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := &testBackend{create: func(int) *mcp.CallToolResult { return text(tc.result, false) }}
			var stdout bytes.Buffer
			r := converse(t, "openai", b, Options{Stdout: &stdout}, func(n int, _ wireTurn) fakeAnswer {
				if n == 1 {
					return fakeAnswer{Tool: "create_booking", Args: `{}`}
				}
				return fakeAnswer{Text: "ok"}
			})
			if r.err != nil {
				t.Fatal(r.err)
			}
			if want := "tool result: " + tc.shown + "\n"; !strings.Contains(stdout.String(), want) || !utf8.Valid(stdout.Bytes()) {
				t.Errorf("stdout lacks %q (or is not UTF-8):\n%q", want, stdout.String())
			}
		})
	}
}

// TestToolResultCutNamesTheBytesKept: a tool result cut for the model with
// a character on the cut keeps the bytes before that character, and the
// stderr line and transcript note name that number, as the result's own
// note does — not the limit.
func TestToolResultCutNamesTheBytesKept(t *testing.T) {
	b := &testBackend{create: func(int) *mcp.CallToolResult { return text("aaaaaaaaa"+"é"+"b", false) }}
	var got string
	r := converse(t, "openai", b, Options{MaxToolResult: 10}, func(n int, w wireTurn) fakeAnswer {
		if n == 1 {
			return fakeAnswer{Tool: "create_booking", Args: `{}`}
		}
		got = w.ResultText
		return fakeAnswer{Text: "ok"}
	})
	if r.err != nil {
		t.Fatal(r.err)
	}
	if want := "aaaaaaaaa\n[agent-harness: the tool result was 12 bytes; the first 9 are shown]"; got != want {
		t.Errorf("the model got %q, want %q", got, want)
	}
	want := "the result of create_booking is 12 bytes; the model gets the first 9"
	if !strings.Contains(r.stderr, want+"\n") || !slices.Contains(r.t.Notes, want) {
		t.Errorf("stderr %q, notes %q; want %q in both", r.stderr, r.t.Notes, want)
	}
}
