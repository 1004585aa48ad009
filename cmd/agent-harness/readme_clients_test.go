package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestREADMEClientConfigs: every configuration in docs/clients.md
// "Configuring an MCP client" (once in the README) parses as JSON with the client's documented top-level key
// (Claude and Cursor: mcpServers; VS Code: servers with "type": "stdio"),
// and every command line in it is one the proxy accepts, with absolute
// paths only (clients start servers in an unknown working directory).
func TestREADMEClientConfigs(t *testing.T) {
	section := docSection(t, "docs/clients.md", "## Configuring an MCP client")
	wantKey := map[string]string{
		"Claude Desktop and Claude Code": "mcpServers",
		"Cursor":                         "mcpServers",
		"VS Code":                        "servers",
	}
	var seen []string
	var claudeArgs []string
	for _, part := range strings.Split(section, "\n#### ")[1:] {
		client, body, _ := strings.Cut(part, "\n")
		key, ok := wantKey[client]
		if !ok {
			t.Errorf("unexpected client heading %q", client)
			continue
		}
		seen = append(seen, client)
		blocks := codeBlocks(body, "json")
		if len(blocks) != 1 {
			t.Fatalf("%s: %d json blocks, want 1", client, len(blocks))
		}
		var doc map[string]map[string]struct {
			Type    *string           `json:"type"`
			Command string            `json:"command"`
			Args    []string          `json:"args"`
			Env     map[string]string `json:"env"`
		}
		dec := json.NewDecoder(strings.NewReader(blocks[0]))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&doc); err != nil {
			t.Fatalf("%s: the JSON does not parse: %v\n%s", client, err, blocks[0])
		}
		if len(doc) != 1 || doc[key] == nil {
			t.Errorf("%s: top-level keys %v, want only %q", client, keysOf(doc), key)
		}
		for name, s := range doc[key] {
			if key == "servers" && (s.Type == nil || *s.Type != "stdio") {
				t.Errorf("%s: server %q has no \"type\": \"stdio\"", client, name)
			}
			if key == "mcpServers" && s.Type != nil {
				t.Errorf("%s: server %q has a type the example does not need", client, name)
			}
			args := make([]string, len(s.Args))
			for i, a := range s.Args {
				args[i] = strings.ReplaceAll(a, "${workspaceFolder}", "/home/me/project")
			}
			checkProxyCommand(t, client, append([]string{s.Command}, args...))
			if client == "Claude Desktop and Claude Code" {
				claudeArgs = s.Args
			}
		}
	}
	if len(seen) != len(wantKey) {
		t.Errorf("client headings %v, want all of %v", seen, keysOf(wantKey))
	}

	// The claude mcp add line: options before the name, the proxy's
	// command line after "--", the same as the JSON's.
	sh := codeBlocks(section, "sh")
	if len(sh) != 1 {
		t.Fatalf("%d sh blocks, want the claude mcp add line", len(sh))
	}
	words := strings.Fields(strings.ReplaceAll(sh[0], "\\\n", " "))
	sep := slices.Index(words, "--")
	if len(words) < 4 || words[0] != "claude" || words[1] != "mcp" || words[2] != "add" || sep < 0 {
		t.Fatalf("not a claude mcp add line with --: %q", sh[0])
	}
	opts := words[3:sep]
	if i := slices.Index(opts, "--transport"); i < 0 || i+1 >= len(opts) || opts[i+1] != "stdio" {
		t.Errorf("claude mcp add options %v lack --transport stdio", opts)
	}
	if name := opts[len(opts)-1]; strings.HasPrefix(name, "-") || name != "bookings-under-test" {
		t.Errorf("the server name %q must come last, before --", name)
	}
	checkProxyCommand(t, "claude mcp add", words[sep+1:])
	if !slices.Equal(words[sep+2:], claudeArgs) {
		t.Errorf("claude mcp add runs %v, the JSON %v", words[sep+2:], claudeArgs)
	}
}

// checkProxyCommand checks cmd = [binary, "proxy", flags...]: absolute
// paths and flags the proxy accepts.
func checkProxyCommand(t *testing.T, where string, cmd []string) {
	t.Helper()
	if len(cmd) < 2 || cmd[1] != "proxy" {
		t.Errorf("%s: %v does not run agent-harness proxy", where, cmd)
		return
	}
	if !filepath.IsAbs(cmd[0]) || filepath.Base(cmd[0]) != "agent-harness" {
		t.Errorf("%s: command %q is not an absolute path of agent-harness", where, cmd[0])
	}
	o, err := parseProxyFlags(cmd[2:])
	if err != nil {
		t.Errorf("%s: the proxy refuses %v: %v", where, cmd[2:], err)
		return
	}
	paths := append([]string{o.UpstreamCommand, o.ReportFile}, o.UpstreamArgs...)
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			t.Errorf("%s: %q is not an absolute path", where, p)
		}
	}
}

func keysOf[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
