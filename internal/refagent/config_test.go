package refagent

import (
	"strings"
	"testing"
)

func TestParseConfig(t *testing.T) {
	for _, c := range []struct {
		name, in, server string
		want             Entry
		err              string
	}{
		{name: "stdio", in: `{"mcpServers":{"harness":{"command":"/bin/ah","args":["proxy","--x"]}}}`,
			want: Entry{Name: "harness", Command: "/bin/ah", Args: []string{"proxy", "--x"}}},
		{name: "http", in: `{"mcpServers":{"h":{"type":"http","url":"http://127.0.0.1:1/mcp"}}}`,
			want: Entry{Name: "h", URL: "http://127.0.0.1:1/mcp"}},
		{name: "vscode", in: `{"servers":{"h":{"type":"stdio","command":"x"}}}`, want: Entry{Name: "h", Command: "x"}},
		{name: "named", server: "b", in: `{"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}}`,
			want: Entry{Name: "b", Command: "y"}},
		{name: "ambiguous", in: `{"mcpServers":{"a":{"command":"x"},"b":{"command":"y"}}}`, err: "2 servers (a, b)"},
		{name: "missing", server: "c", in: `{"mcpServers":{"a":{"command":"x"}}}`, err: `no server "c"`},
		{name: "both", in: `{"mcpServers":{"a":{"command":"x","url":"http://h"}}}`, err: "both"},
		{name: "neither", in: `{"mcpServers":{"a":{}}}`, err: "neither"},
		{name: "ftp", in: `{"mcpServers":{"a":{"url":"ftp://h"}}}`, err: "not http"},
		{name: "not json", in: `{`, err: "not a JSON object"},
		{name: "no servers", in: `{}`, err: "mcpServers"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseConfig([]byte(c.in), c.server)
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error %v, want one containing %q", err, c.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Name != c.want.Name || got.Command != c.want.Command || got.URL != c.want.URL ||
				strings.Join(got.Args, "\x00") != strings.Join(c.want.Args, "\x00") {
				t.Errorf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers":{"harness":{"command":"/bin/ah","args":["proxy"]}}}`), "")
	f.Add([]byte(`{"mcpServers":{"h":{"type":"http","url":"http://127.0.0.1:1/mcp"}}}`), "h")
	f.Add([]byte(`{"servers":{"a":{"command":"x"},"b":{"url":"https://y"}}}`), "b")
	f.Add([]byte(`{"mcpServers":null}`), "")
	f.Fuzz(func(t *testing.T, data []byte, server string) {
		e, err := ParseConfig(data, server)
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n\r") {
				t.Errorf("error is not one line: %q", err)
			}
			return
		}
		if (e.Command == "") == (e.URL == "") {
			t.Errorf("entry %+v must have exactly one of command and url", e)
		}
	})
}
