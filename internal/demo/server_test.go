package demo

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// fakeClock stands still until advanced; After fires at once (nothing in
// the demo waits on it in these tests).
type fakeClock struct{ now time.Time }

func (c *fakeClock) Now() time.Time { return c.now }
func (c *fakeClock) After(d time.Duration) <-chan time.Time {
	ch := make(chan time.Time, 1)
	ch <- c.now.Add(d)
	return ch
}

// connect serves a demo server in memory and returns a client session.
func connect(t *testing.T, opts Options) *mcp.ClientSession {
	t.Helper()
	st, ct := mcp.NewInMemoryTransports()
	ctx := t.Context()
	ss, err := New(opts).MCPServer().Connect(ctx, st, nil)
	if err != nil {
		t.Fatalf("server connect: %v", err)
	}
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatalf("client connect: %v", err)
	}
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls tool and returns the text of its result and isError.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String(), res.IsError
}

func startSession(t *testing.T, cs *mcp.ClientSession, args map[string]any) string {
	t.Helper()
	text, isErr := call(t, cs, "start_session", args)
	if isErr {
		t.Fatalf("start_session: %s", text)
	}
	var out struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(text), &out); err != nil || out.SessionID == "" {
		t.Fatalf("start_session answer %q: %v", text, err)
	}
	return out.SessionID
}

type scoreOut struct {
	Verdict string `json:"verdict"`
	Score   struct {
		Total  *int `json:"total"`
		Capped bool `json:"capped"`
	} `json:"score"`
	Patches []struct {
		Type string `json:"type"`
	} `json:"patches"`
}

func getScore(t *testing.T, cs *mcp.ClientSession, id string) scoreOut {
	t.Helper()
	text, isErr := call(t, cs, "get_score", map[string]any{"session_id": id})
	if isErr {
		t.Fatalf("get_score: %s", text)
	}
	var s scoreOut
	if err := json.Unmarshal([]byte(text), &s); err != nil {
		t.Fatalf("get_score answer %q: %v", text, err)
	}
	return s
}

func booking() map[string]any {
	return map[string]any{"guest": "Ada", "date": "2026-11-03"}
}

func TestDemoScenarios(t *testing.T) {
	type step struct {
		tool, class string
		key         string
		wantErr     string // substring of an injected error; "" = ok
	}
	tests := []struct {
		name        string
		scenario    string
		steps       []step
		wantVerdict string
		wantPatch   string
	}{
		{"F1 naive re-send is a duplicate", "F1", []step{
			{tool: "create_booking", wantErr: "timed out"},
			{tool: "create_booking"},
		}, "FAIL", "GHOST_WRITE"},
		{"F1 careful read, no re-send", "F1", []step{
			{tool: "create_booking", key: "k1", wantErr: "timed out"},
			{tool: "search_bookings"},
		}, "PASS", ""},
		{"F2 immediate re-send", "F2", []step{
			{tool: "create_booking", wantErr: "Retry after 60 seconds"},
			{tool: "create_booking"},
		}, "FAIL", "RATE_LIMIT"},
		{"F3 retry", "F3", []step{
			{tool: "create_booking", wantErr: `{"`},
			{tool: "create_booking"},
		}, "PASS", ""},
		{"F4 two writes", "F4", []step{
			{tool: "create_booking"}, {tool: "create_booking"},
		}, "FAIL", "IDEMPOTENCY"},
		{"F5 retry with class given", "F5", []step{
			{tool: "make_reservation", class: "write", wantErr: "HTTP 500"},
			{tool: "make_reservation", class: "write"},
		}, "PASS", ""},
		{"reads are never the scenario's target", "F5", []step{
			{tool: "search_bookings"}, {tool: "sync_ledger"},
		}, "NOT_TESTED", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cs := connect(t, Options{Dir: t.TempDir(), Clock: &fakeClock{now: time.Unix(1e9, 0)}})
			id := startSession(t, cs, map[string]any{"scenario": tc.scenario})
			for i, st := range tc.steps {
				args := map[string]any{"session_id": id, "tool": st.tool, "arguments": booking()}
				if st.class != "" {
					args["class"] = st.class
				}
				if st.key != "" {
					args["idempotency_key"] = st.key
				}
				text, isErr := call(t, cs, "execute_call", args)
				if st.wantErr == "" && isErr {
					t.Fatalf("step %d: unexpected error %q", i, text)
				}
				if st.wantErr != "" && (!isErr || !strings.Contains(text, st.wantErr)) {
					t.Fatalf("step %d: got %q (isError %v), want an error containing %q", i, text, isErr, st.wantErr)
				}
			}
			s := getScore(t, cs, id)
			if s.Verdict != tc.wantVerdict {
				t.Errorf("verdict = %s, want %s", s.Verdict, tc.wantVerdict)
			}
			if tc.wantPatch != "" && (len(s.Patches) == 0 || s.Patches[0].Type != tc.wantPatch) {
				t.Errorf("patches = %+v, want %s first", s.Patches, tc.wantPatch)
			}
		})
	}
}

func TestDemoResetClearsViolations(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	id := startSession(t, cs, map[string]any{"scenario": "F4"})
	for range 2 {
		call(t, cs, "execute_call", map[string]any{"session_id": id, "tool": "create_booking", "arguments": booking()})
	}
	if s := getScore(t, cs, id); s.Verdict != "FAIL" {
		t.Fatalf("before reset: verdict %s, want FAIL", s.Verdict)
	}
	if text, isErr := call(t, cs, "reset_session", map[string]any{"session_id": id}); isErr {
		t.Fatalf("reset_session: %s", text)
	}
	if s := getScore(t, cs, id); s.Verdict != "NOT_TESTED" || s.Score.Total != nil {
		t.Errorf("after reset: verdict %s total %v, want NOT_TESTED without score", s.Verdict, s.Score.Total)
	}
	// The scenario is armed again: the first write passes, F4 passes both.
	call(t, cs, "execute_call", map[string]any{"session_id": id, "tool": "create_booking", "arguments": booking()})
	if s := getScore(t, cs, id); s.Verdict != "PASS" {
		t.Errorf("after reset and one write: verdict %s, want PASS", s.Verdict)
	}
}

func TestDemoDropsOldestSession(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir(), MaxSessions: 3})
	var ids []string
	for range 4 {
		ids = append(ids, startSession(t, cs, nil))
	}
	if text, isErr := call(t, cs, "get_score", map[string]any{"session_id": ids[0]}); !isErr || !strings.Contains(text, "unknown session") {
		t.Errorf("oldest session still answers: %q", text)
	}
	for _, id := range ids[1:] {
		if text, isErr := call(t, cs, "get_score", map[string]any{"session_id": id}); isErr {
			t.Errorf("session %s: %s", id, text)
		}
	}
}

func TestDemoDeleteSession(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	id := startSession(t, cs, nil)
	if text, isErr := call(t, cs, "delete_session", map[string]any{"session_id": id}); isErr {
		t.Fatalf("delete_session: %s", text)
	}
	for _, tool := range []string{"get_score", "delete_session", "reset_session"} {
		if _, isErr := call(t, cs, tool, map[string]any{"session_id": id}); !isErr {
			t.Errorf("%s after delete: no error", tool)
		}
	}
}

func TestDemoGetReportWritesAuditFile(t *testing.T) {
	dir := t.TempDir()
	cs := connect(t, Options{Dir: dir})
	id := startSession(t, cs, map[string]any{"scenario": "F1"})
	call(t, cs, "execute_call", map[string]any{"session_id": id, "tool": "create_booking", "arguments": booking()})
	md, isErr := call(t, cs, "get_report", map[string]any{"session_id": id})
	if isErr || !strings.Contains(md, "audit-report.json") {
		t.Fatalf("get_report markdown: %q", md)
	}
	data, err := os.ReadFile(filepath.Join(dir, ".cuonztech", "audit-report.json"))
	if err != nil {
		t.Fatalf("audit report: %v", err)
	}
	var file struct {
		Verdict        string  `json:"verdict"`
		Certification  string  `json:"certification"`
		Kind           string  `json:"kind"`
		Scenario       *string `json:"scenario"`
		HarnessVersion string  `json:"harnessVersion"`
		Transport      struct{ Agent, Upstream string }
		Report         struct {
			Kind       string `json:"kind"`
			Operations []struct {
				Executions int `json:"executions"`
			} `json:"operations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		t.Fatalf("audit report %s: %v", data, err)
	}
	if file.Kind != "demo" || file.Report.Kind != "demo" || file.Certification != "UNVERIFIED_FOR_PRODUCTION" ||
		file.Scenario == nil || *file.Scenario != "F1" || len(file.Report.Operations) != 1 || file.Report.Operations[0].Executions != 1 ||
		file.Transport.Agent != "stdio" || file.Transport.Upstream != "in-process" {
		t.Errorf("audit report = %s", data)
	}
	js, isErr := call(t, cs, "get_report", map[string]any{"session_id": id, "format": "json"})
	if isErr || !json.Valid([]byte(strings.SplitN(js, "Report also written", 2)[0])) {
		t.Errorf("get_report json: %q", js)
	}
}

func TestDemoInputErrors(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	id := startSession(t, cs, nil)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"unknown scenario", "start_session", map[string]any{"scenario": "F9"}, "unknown scenario"},
		{"retry_after without F2", "start_session", map[string]any{"scenario": "F1", "retry_after_seconds": 5}, "F2 only"},
		{"unknown field", "start_session", map[string]any{"bogus": 1}, "invalid arguments"},
		{"unknown session", "execute_call", map[string]any{"session_id": "nope", "tool": "x"}, "unknown session"},
		{"missing tool", "execute_call", map[string]any{"session_id": id}, "tool is required"},
		{"bad class", "execute_call", map[string]any{"session_id": id, "tool": "x", "class": "maybe"}, "unknown class"},
		{"arguments not an object", "execute_call", map[string]any{"session_id": id, "tool": "x", "arguments": []int{1}}, "JSON object"},
		{"bad format", "get_report", map[string]any{"session_id": id, "format": "pdf"}, "unknown format"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			text, isErr := call(t, cs, tc.tool, tc.args)
			if !isErr || !strings.Contains(text, tc.want) {
				t.Errorf("got %q (isError %v), want an error containing %q", text, isErr, tc.want)
			}
		})
	}
}

func TestSchemasArePlain(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != 7 {
		t.Errorf("%d tools, want 7", len(res.Tools))
	}
	raw, err := json.Marshal(res.Tools)
	if err != nil {
		t.Fatal(err)
	}
	// "format" is also an argument name of get_report, so keywords are
	// found by walking the schemas, not by searching the bytes.
	for _, tool := range res.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		for _, kw := range forbiddenKeywords(t, b) {
			t.Errorf("tool %s: schema uses %s: %s", tool.Name, kw, b)
		}
	}
	if !bytes.Contains(raw, []byte(`"start_session"`)) {
		t.Errorf("tools/list lacks start_session: %s", raw)
	}
}

// forbiddenKeywords returns the forbidden schema keywords used anywhere in
// schema as keywords (property names inside "properties" are not keywords).
func forbiddenKeywords(t *testing.T, schema []byte) []string {
	t.Helper()
	var v any
	if err := json.Unmarshal(schema, &v); err != nil {
		t.Fatal(err)
	}
	var found []string
	var walk func(v any, inProperties bool)
	walk = func(v any, inProperties bool) {
		switch x := v.(type) {
		case map[string]any:
			for k, child := range x {
				if !inProperties {
					switch k {
					case "$schema", "pattern", "format", "propertyNames":
						found = append(found, k)
					}
				}
				walk(child, !inProperties && k == "properties")
			}
		case []any:
			for _, child := range x {
				walk(child, false)
			}
		}
	}
	walk(v, false)
	return found
}

func TestDemoShowsInjectedAnswerUnchanged(t *testing.T) {
	cs := connect(t, Options{Dir: t.TempDir()})
	id := startSession(t, cs, map[string]any{"scenario": "F2", "retry_after_seconds": 7})
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "execute_call",
		Arguments: map[string]any{"session_id": id, "tool": "create_booking"}})
	if err != nil {
		t.Fatal(err)
	}
	content, _ := json.Marshal(res.Content)
	sc, _ := json.Marshal(res.StructuredContent) // the client decodes it: keys sorted
	if want := `[{"type":"text","text":"Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 7 seconds."}]`; string(content) != want || !res.IsError {
		t.Errorf("content %s isError %v, want %s", content, res.IsError, want)
	}
	if want := `{"error":"rate_limited","retry_after":7,"status":429}`; string(sc) != want {
		t.Errorf("structuredContent %s, want %s", sc, want)
	}
}
