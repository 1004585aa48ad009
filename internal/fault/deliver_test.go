package fault

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// Calls as the proxy sees them for the three kinds of client session.
var (
	plainCall  = Call{ID: 1, Tool: "t", Class: classify.Write, ProtocolVersion: "2025-06-18"}
	schemaCall = Call{ID: 1, Tool: "t", Class: classify.Write, ProtocolVersion: "2025-06-18", OutputSchema: true}
	oldCall    = Call{ID: 1, Tool: "t", Class: classify.Write, ProtocolVersion: "2025-03-26"}
)

const rateLimit60 = `{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}],"isError":true,"_meta":{"agent-harness/retryAfter":60}}`

// TestF2WithoutStructuredContent: behaviour §3.3 — for a tool that declares
// an outputSchema (and for a session whose version predates
// structuredContent) the 429 carries no structuredContent; retry_after is
// in the text and in _meta.
func TestF2WithoutStructuredContent(t *testing.T) {
	for _, tt := range []struct {
		name string
		c    Call
		want string
	}{
		{"outputSchema", schemaCall, rateLimit60},
		{"outputSchema, version unknown", Call{Class: classify.Write, OutputSchema: true}, rateLimit60},
		{"version 2025-03-26", oldCall, rateLimit60},
		{"version 2024-11-05", Call{Class: classify.Write, ProtocolVersion: "2024-11-05"}, rateLimit60},
		{"no outputSchema", plainCall, `{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}],"structuredContent":{"error":"rate_limited","status":429,"retry_after":60},"isError":true}`},
		{"no outputSchema, version unknown", Call{Class: classify.Write}, `{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}],"structuredContent":{"error":"rate_limited","status":429,"retry_after":60},"isError":true}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := NewRateLimit(DefaultRetryAfter).Decide(tt.c)
			if string(a.Result) != tt.want {
				t.Errorf("result\n got %s\nwant %s", a.Result, tt.want)
			}
			if a.RetryAfter != 60*time.Second {
				t.Errorf("RetryAfter %v", a.RetryAfter)
			}
			got, err := Deliver(a.Result, tt.c)
			if err != nil || string(got) != tt.want {
				t.Errorf("Deliver changed the F2 result: %s, %v", got, err)
			}
		})
	}
}

// TestDeliverKeepsBuiltinResults: every built-in result reaches the agent
// byte for byte as documented, for every kind of call.
func TestDeliverKeepsBuiltinResults(t *testing.T) {
	results := []json.RawMessage{
		ErrorResult(TimeoutText), ErrorResult(TruncatedText), ErrorResult(ServerErrorText),
		RateLimitMetaResult(time.Second),
	}
	for _, c := range []Call{plainCall, schemaCall, oldCall, {}} {
		for _, r := range results {
			got, err := Deliver(r, c)
			if err != nil || string(got) != string(r) {
				t.Errorf("call %+v: Deliver(%s) = %s, %v; want it unchanged", c, r, got, err)
			}
		}
	}
	// The structured F2 loses its structuredContent where it cannot be
	// delivered; Deliver is then the _meta variant's text without _meta.
	got, err := Deliver(RateLimitResult(time.Minute), schemaCall)
	want := `{"content":[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 60 seconds."}],"isError":true}`
	if err != nil || string(got) != want {
		t.Errorf("Deliver(structured 429, outputSchema) = %s, %v\nwant %s", got, err, want)
	}
}

func TestDeliver(t *testing.T) {
	tests := []struct {
		name   string
		c      Call
		in     string
		want   string // empty: same as in
		errHas string
	}{
		{name: "plain error", c: schemaCall, in: `{"content":[{"type":"text","text":"x"}],"isError":true}`},
		{name: "white space and member order", c: plainCall, in: ` { "isError" : true , "content" : [ { "text" : "a\u00e9<>" , "type" : "text" } ] } `,
			want: `{"content":[{"type":"text","text":"a\u00e9<>"}],"isError":true}`},
		{name: "structuredContent kept without outputSchema", c: plainCall,
			in: `{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":12345678901234567890},"isError":true}`},
		{name: "structuredContent dropped for outputSchema", c: schemaCall,
			in:   `{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1},"isError":true}`,
			want: `{"content":[{"type":"text","text":"x"}],"isError":true}`},
		{name: "structuredContent dropped before 2025-06-18", c: oldCall,
			in:   `{"content":[{"type":"text","text":"x"}],"structuredContent":{"n":1},"isError":false}`,
			want: `{"content":[{"type":"text","text":"x"}],"isError":false}`},
		{name: "success without outputSchema", c: plainCall, in: `{"content":[{"type":"text","text":"ok"}]}`},
		{name: "success for outputSchema before 2025-06-18 (the client checks no schema)", c: Call{OutputSchema: true, ProtocolVersion: "2025-03-26"},
			in: `{"content":[{"type":"text","text":"ok"}],"isError":false}`},
		{name: "success for outputSchema refused", c: schemaCall, in: `{"content":[{"type":"text","text":"ok"}],"isError":false}`, errHas: "outputSchema"},
		{name: "success with structuredContent for outputSchema refused", c: schemaCall,
			in: `{"content":[{"type":"text","text":"ok"}],"structuredContent":{"entities":[]}}`, errHas: "outputSchema"},
		{name: "unknown members and item members dropped", c: plainCall,
			in:   `{"content":[{"type":"text","text":"x","annotations":{"priority":7},"_meta":{"a":1}}],"isError":true,"toolResult":1,"extra":{}}`,
			want: `{"content":[{"type":"text","text":"x"}],"isError":true}`},
		{name: "_meta kept, reserved keys dropped", c: schemaCall,
			in:   `{"content":[{"type":"text","text":"x"}],"isError":true,"_meta":{"progressToken":{},"io.modelcontextprotocol/related-task":1,"dev.mcp/x":2,"a/b":[1, 2],"k":null}}`,
			want: `{"content":[{"type":"text","text":"x"}],"isError":true,"_meta":{"a/b":[1,2],"k":null}}`},
		{name: "_meta with reserved keys only", c: plainCall,
			in:   `{"content":[{"type":"text","text":"x"}],"isError":true,"_meta":{"progressToken":1}}`,
			want: `{"content":[{"type":"text","text":"x"}],"isError":true}`},
		{name: "image", c: plainCall, in: `{"content":[{"type":"image","data":"aGk=","mimeType":"image/png"}],"isError":true}`},
		{name: "audio", c: oldCall, in: `{"content":[{"type":"audio","data":"aGk=","mimeType":"audio/wav"}],"isError":true}`},
		{name: "audio before 2025-03-26", c: Call{ProtocolVersion: "2024-11-05"},
			in: `{"content":[{"type":"audio","data":"aGk=","mimeType":"audio/wav"}],"isError":true}`, errHas: `"audio" needs protocol version 2025-03-26`},
		{name: "resource_link", c: plainCall, in: `{"content":[{"type":"resource_link","uri":"u:1","name":"n","title":"t","description":"d","mimeType":"m"}],"isError":true}`},
		{name: "resource_link optional non-strings dropped", c: plainCall,
			in:   `{"content":[{"type":"resource_link","uri":"u:1","name":"n","title":5,"size":3,"icons":[]}],"isError":true}`,
			want: `{"content":[{"type":"resource_link","uri":"u:1","name":"n"}],"isError":true}`},
		{name: "resource_link before 2025-06-18", c: oldCall,
			in: `{"content":[{"type":"resource_link","uri":"u:1","name":"n"}],"isError":true}`, errHas: "2025-06-18"},
		{name: "embedded text resource", c: plainCall, in: `{"content":[{"type":"resource","resource":{"uri":"u:1","mimeType":"text/plain","text":"t"}}],"isError":true}`},
		{name: "embedded blob resource", c: plainCall, in: `{"content":[{"type":"resource","resource":{"uri":"u:1","blob":"aGk="}}],"isError":true}`},
		{name: "version not a date counts as newest", c: Call{ProtocolVersion: "draft"},
			in: `{"content":[{"type":"resource_link","uri":"u:1","name":"n"}],"structuredContent":{},"isError":true}`},

		{name: "not an object", c: plainCall, in: `[]`, errHas: "not a JSON object"},
		{name: "null", c: plainCall, in: `null`, errHas: "not a JSON object"},
		{name: "invalid UTF-8", c: plainCall, in: "{\"content\":[{\"type\":\"text\",\"text\":\"\xff\"}],\"isError\":true}", errHas: "UTF-8"},
		{name: "content missing", c: plainCall, in: `{"isError":true}`, errHas: `"content" must be an array`},
		{name: "content empty", c: plainCall, in: `{"content":[],"isError":true}`, errHas: "empty"},
		{name: "isError a string", c: plainCall, in: `{"content":[{"type":"text","text":"x"}],"isError":"true"}`, errHas: "isError"},
		{name: "isError null", c: plainCall, in: `{"content":[{"type":"text","text":"x"}],"isError":null}`, errHas: "isError"},
		{name: "structuredContent an array", c: schemaCall, in: `{"content":[{"type":"text","text":"x"}],"structuredContent":[],"isError":true}`, errHas: "structuredContent"},
		{name: "_meta a string", c: plainCall, in: `{"content":[{"type":"text","text":"x"}],"isError":true,"_meta":"m"}`, errHas: "_meta"},
		{name: "unknown type", c: plainCall, in: `{"content":[{"type":"video"}],"isError":true}`, errHas: `content item 0: unknown content type "video"`},
		{name: "item without type", c: plainCall, in: `{"content":[{"text":"x"}],"isError":true}`, errHas: "type"},
		{name: "text not a string", c: plainCall, in: `{"content":[{"type":"text","text":1}],"isError":true}`, errHas: `"text" missing`},
		{name: "image not base64", c: plainCall, in: `{"content":[{"type":"image","data":"!!","mimeType":"image/png"}],"isError":true}`, errHas: "base64"},
		{name: "image without mimeType", c: plainCall, in: `{"content":[{"type":"image","data":"aGk="}],"isError":true}`, errHas: "mimeType"},
		{name: "resource with text and blob", c: plainCall, in: `{"content":[{"type":"resource","resource":{"uri":"u","text":"t","blob":"aGk="}}],"isError":true}`, errHas: "exactly one"},
		{name: "resource without uri", c: plainCall, in: `{"content":[{"type":"resource","resource":{"text":"t"}}],"isError":true}`, errHas: "uri"},
		{name: "second item invalid", c: plainCall, in: `{"content":[{"type":"text","text":"x"},{"type":"text"}],"isError":true}`, errHas: "content item 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Deliver(json.RawMessage(tt.in), tt.c)
			if tt.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tt.errHas) {
					t.Fatalf("Deliver = %s, %v; want an error containing %q", got, err, tt.errHas)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("error spans lines: %q", err)
				}
				return
			}
			want := tt.want
			if want == "" {
				want = tt.in
			}
			if err != nil || string(got) != want {
				t.Fatalf("Deliver\n got %s, %v\nwant %s", got, err, want)
			}
			again, err := Deliver(got, tt.c)
			if err != nil || string(again) != string(got) {
				t.Errorf("Deliver is not idempotent: %s, %v", again, err)
			}
		})
	}
}

// FuzzDeliver: whatever a plugin returns, Deliver either refuses it or
// returns a JSON object that Deliver keeps unchanged, with no
// structuredContent where the call cannot take it, and a boolean isError
// true for a tool whose outputSchema the client checks.
func FuzzDeliver(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"x"}],"isError":true}`,
		`{"content":[{"type":"text","text":"x"}],"structuredContent":{"a":[1,{"b":null}]},"isError":true,"_meta":{"k":1,"progressToken":2}}`,
		`{"content":[{"type":"image","data":"aGk=","mimeType":"i"},{"type":"resource","resource":{"uri":"u","blob":"aGk="}},{"type":"resource_link","uri":"u","name":"n"}]}`,
		`{"content":[{"type":"audio","data":"","mimeType":"a"}],"isError":false}`,
		`{"content":[{"type":"text","text":"x","text":"y"}],"isError":true}`,
		`{"content":{}}`, `[]`, `"x"`, ``,
	} {
		for _, v := range []string{"", "2024-11-05", "2025-03-26", "2025-06-18", "2026-07-28", "x"} {
			f.Add(s, v, false)
			f.Add(s, v, true)
		}
	}
	f.Fuzz(func(t *testing.T, in, version string, outputSchema bool) {
		c := Call{ProtocolVersion: version, OutputSchema: outputSchema}
		got, err := Deliver(json.RawMessage(in), c)
		if err != nil {
			return
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(got, &m); err != nil {
			t.Fatalf("Deliver(%q) = %q: %v", in, got, err)
		}
		if _, ok := m["structuredContent"]; ok && !c.Structured() {
			t.Fatalf("Deliver(%q) = %q keeps structuredContent", in, got)
		}
		if c.validatesOutput() && string(m["isError"]) != "true" {
			t.Fatalf("Deliver(%q) = %q: a non-error result for an outputSchema tool", in, got)
		}
		again, err := Deliver(got, c)
		if err != nil || string(again) != string(got) {
			t.Fatalf("not idempotent: %q → %q → %q, %v", in, got, again, err)
		}
	})
}

// TestDeliverResultType: MCP 2026-07-28 requires resultType in every
// CallToolResult ("Servers implementing this protocol version MUST include
// this field"), so an injected result for such a session says "complete";
// earlier versions, and an unknown one, get none (absent means complete).
func TestDeliverResultType(t *testing.T) {
	tests := []struct {
		version string
		want    bool
	}{
		{"2026-07-28", true},
		{"2027-01-01", true},
		{"2025-11-25", false},
		{"2025-06-18", false},
		{"", false},
		{"draft", false},
	}
	for _, tc := range tests {
		t.Run(tc.version, func(t *testing.T) {
			c := Call{ID: 1, Tool: "t", Class: classify.Write, ProtocolVersion: tc.version}
			for _, r := range []json.RawMessage{ErrorResult("timed out"), RateLimitMetaResult(60 * time.Second)} {
				got, err := Deliver(r, c)
				if err != nil {
					t.Fatal(err)
				}
				var m map[string]json.RawMessage
				if err := json.Unmarshal(got, &m); err != nil {
					t.Fatalf("not JSON: %s", got)
				}
				rt, ok := m["resultType"]
				if ok != tc.want || (ok && string(rt) != `"complete"`) {
					t.Errorf("version %q: resultType %s (present %v), want present %v: %s", tc.version, rt, ok, tc.want, got)
				}
			}
		})
	}
}
