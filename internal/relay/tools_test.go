package relay

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/wire"
)

func TestAppendTools(t *testing.T) {
	extras := []json.RawMessage{json.RawMessage(`{"name":"x"}`), json.RawMessage(`{"name":"y"}`)}
	tests := []struct {
		name, line, want string
	}{
		{"after existing tools",
			`{"id":1,"result":{"tools":[{"name":"a"}]}}`,
			`{"id":1,"result":{"tools":[{"name":"a"},{"name":"x"},{"name":"y"}]}}`},
		{"empty array with whitespace kept",
			`{"id":1,"result":{"tools":[ ] ,"z":1}}`,
			`{"id":1,"result":{"tools":[ {"name":"x"},{"name":"y"}] ,"z":1}}`},
		{"whitespace before the bracket kept",
			"{\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\"}\n]}}",
			"{\"id\":1,\"result\":{\"tools\":[{\"name\":\"a\"}\n,{\"name\":\"x\"},{\"name\":\"y\"}]}}"},
		{"no tools array: unchanged",
			`{"id":1,"result":{"other":[]}}`,
			`{"id":1,"result":{"other":[]}}`},
		{"tools not an array: unchanged",
			`{"id":1,"result":{"tools":{}}}`,
			`{"id":1,"result":{"tools":{}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := wire.ParseEnvelope([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			got := appendTools([]byte(tt.line), env.ResultStart, parseToolsPage(env.Result), extras)
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseToolsPage(t *testing.T) {
	tests := []struct {
		name   string
		result string
		tools  int
		last   bool
	}{
		{"last page", `{"tools":[{"name":"a"},{"name":"b"}]}`, 2, true},
		{"next page", `{"tools":[{"name":"a"}],"nextCursor":"c"}`, 1, false},
		{"null cursor", `{"tools":[],"nextCursor":null}`, 0, true},
		{"empty cursor", `{"tools":[],"nextCursor":""}`, 0, true},
		{"numeric cursor", `{"tools":[],"nextCursor":2}`, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := parseToolsPage([]byte(tt.result))
			if len(p.tools) != tt.tools || (p.nextCursor == nil) != tt.last {
				t.Errorf("got %d tools, cursor %s", len(p.tools), p.nextCursor)
			}
		})
	}
}

func TestAddToolsCapability(t *testing.T) {
	tests := []struct {
		name, line, want string
	}{
		{"other capabilities",
			`{"id":0,"result":{"capabilities":{"prompts":{}},"serverInfo":{}}}`,
			`{"id":0,"result":{"capabilities":{"tools":{},"prompts":{}},"serverInfo":{}}}`},
		{"empty capabilities",
			`{"id":0,"result":{"capabilities":{ }}}`,
			`{"id":0,"result":{"capabilities":{"tools":{} }}}`},
		{"no capabilities",
			`{"id":0,"result":{"serverInfo":{}}}`,
			`{"id":0,"result":{"capabilities":{"tools":{}},"serverInfo":{}}}`},
		{"empty result",
			`{"id":0,"result":{}}`,
			`{"id":0,"result":{"capabilities":{"tools":{}}}}`},
		{"capabilities not an object: unchanged",
			`{"id":0,"result":{"capabilities":null}}`,
			`{"id":0,"result":{"capabilities":null}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env, err := wire.ParseEnvelope([]byte(tt.line))
			if err != nil {
				t.Fatal(err)
			}
			if got := addToolsCapability([]byte(tt.line), env); string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzToolsListRewrite: whatever the upstream sends as a tools/list
// response, appending tools yields valid JSON whose other bytes are kept.
func FuzzToolsListRewrite(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[{"name":"a"}]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[],"nextCursor":"x"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":[ ]}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"tools":{}}}`,
		`{"jsonrpc":"2.0","id":1,"result":[]}`,
		`{"jsonrpc":"2.0","id":0,"result":{"capabilities":{}}}`,
	} {
		f.Add([]byte(s))
	}
	extras := []json.RawMessage{json.RawMessage(`{"name":"zz_extra"}`)}
	f.Fuzz(func(t *testing.T, line []byte) {
		env, err := wire.ParseEnvelope(line)
		if err != nil || env.Result == nil {
			return
		}
		page := parseToolsPage(env.Result)
		out := appendTools(line, env.ResultStart, page, extras)
		if !wire.Valid(out) {
			t.Fatalf("appendTools made invalid JSON: %q -> %q", line, out)
		}
		if page.closing >= 0 && len(out) != len(line)+len(extras[0])+boolInt(!page.empty) {
			t.Fatalf("appendTools changed other bytes: %q -> %q", line, out)
		}
		if c := addToolsCapability(line, env); !wire.Valid(c) {
			t.Fatalf("addToolsCapability made invalid JSON: %q -> %q", line, c)
		}
	})
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

func TestTail(t *testing.T) {
	var tl tail
	for i := range 30 {
		tl.add(strings.Repeat("x", i))
	}
	got := tl.snapshot()
	if len(got) != tailMaxLines || got[len(got)-1] != strings.Repeat("x", 29) {
		t.Errorf("kept %d lines, last %q", len(got), got[len(got)-1])
	}
	tl.add(strings.Repeat("y", 10000))
	got = tl.snapshot()
	if len(got) != 1 || len(got[0]) > tailMaxBytes+len("…") {
		t.Errorf("a huge line: kept %d lines of %d bytes", len(got), len(got[0]))
	}
}
