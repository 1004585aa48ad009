// Package refagent is the reference agent of `agent-harness agent` (behaviour
// §9.5): an MCP client process that reads the common client configuration,
// books one booking on the sample server and handles failures carefully,
// naively or, at random, either way; and the benchmark's two deterministic
// agents, CAREFUL and NAIVE (Agent, behaviour §10), which selftest runs in
// process on its fake clock. Both drive a Caller (one MCP client session)
// with the same answer reading, search and broken-session test.
package refagent

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/cuonztech/agent-harness/internal/escape"
)

// Entry is one server of an MCP client configuration: a command to start
// (stdio) or a URL (Streamable HTTP).
type Entry struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string // set for an HTTP entry; Command is then empty
}

// ParseConfig reads the common client format {"mcpServers": {NAME: {...}}}
// (VS Code's "servers" too) and returns the entry named server, or the
// only entry when server is "". Errors are one line.
func ParseConfig(data []byte, server string) (Entry, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return Entry{}, fmt.Errorf("not a JSON object: %s", escape.LineBreaks(err.Error()))
	}
	raw, ok := top["mcpServers"]
	if !ok {
		raw, ok = top["servers"]
	}
	if !ok {
		return Entry{}, errors.New(`no "mcpServers" object`)
	}
	var servers map[string]json.RawMessage
	if err := json.Unmarshal(raw, &servers); err != nil || servers == nil {
		return Entry{}, errors.New(`"mcpServers" is not an object`)
	}
	if server == "" {
		if len(servers) != 1 {
			names := make([]string, 0, len(servers))
			for n := range servers {
				names = append(names, n)
			}
			sort.Strings(names)
			return Entry{}, fmt.Errorf("%d servers (%s): name one with --server", len(servers), strings.Join(names, ", "))
		}
		for n := range servers {
			server = n
		}
	}
	body, ok := servers[server]
	if !ok {
		return Entry{}, fmt.Errorf("no server %q", server)
	}
	var e struct {
		Type    string            `json:"type"`
		Command *string           `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
		URL     *string           `json:"url"`
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if err := dec.Decode(&e); err != nil {
		return Entry{}, fmt.Errorf("server %q: %s", server, escape.LineBreaks(err.Error()))
	}
	entry := Entry{Name: server, Args: e.Args, Env: e.Env}
	switch {
	case e.URL != nil && e.Command != nil:
		return Entry{}, fmt.Errorf("server %q has both command and url", server)
	case e.URL != nil:
		if e.Type != "" && e.Type != "http" && e.Type != "streamable-http" {
			return Entry{}, fmt.Errorf("server %q: type %q is not supported (stdio or http)", server, e.Type)
		}
		if !strings.HasPrefix(*e.URL, "http://") && !strings.HasPrefix(*e.URL, "https://") {
			return Entry{}, fmt.Errorf("server %q: url %q is not http(s)", server, *e.URL)
		}
		entry.URL = *e.URL
	case e.Command != nil:
		if e.Type != "" && e.Type != "stdio" {
			return Entry{}, fmt.Errorf("server %q: type %q with a command (want stdio)", server, e.Type)
		}
		if *e.Command == "" {
			return Entry{}, fmt.Errorf("server %q: empty command", server)
		}
		entry.Command = *e.Command
	default:
		return Entry{}, fmt.Errorf("server %q has neither command nor url", server)
	}
	return entry, nil
}
