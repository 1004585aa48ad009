package e2e

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// npmProxyFlags puts the proxy in front of an npm server's command line.
func npmProxyFlags(cmdline []string) []string {
	// The audit tools (on by default) would be appended to tools/list.
	flags := []string{"--audit-tools", "off", "--upstream-command", cmdline[0]}
	for _, a := range cmdline[1:] {
		flags = append(flags, "--upstream-arg="+a)
	}
	return flags
}

// notificationMethods lists the methods of the notifications among msgs,
// sorted (their timing is the server's).
func notificationMethods(msgs [][]byte) []string {
	var out []string
	for _, m := range msgs {
		var env struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(m, &env) == nil && env.Method != "" && env.ID == nil {
			out = append(out, env.Method)
		}
	}
	slices.Sort(out)
	return out
}

// runNPMComparison runs script against the server directly and through the
// proxy and compares every response and the notifications received.
func runNPMComparison(t *testing.T, cmdline []string, env func(run string) []string, script func(p *peer) []captured) {
	t.Helper()
	direct := startPeer(t, env("direct"), cmdline[0], cmdline[1:]...)
	want := script(direct)
	_, wantRest := direct.closeAndWait()

	p := startProxy(t, env("proxy"), npmProxyFlags(cmdline)...)
	got := script(p)
	code, gotRest := p.closeAndWait()
	if code != 0 {
		t.Errorf("proxy exit %d; stderr:\n%s", code, p.stderr.String())
	}
	if len(got) != len(want) {
		t.Fatalf("proxy gave %d messages, direct %d", len(got), len(want))
	}
	for i := range want {
		sameJSON(t, want[i].label, want[i].msg, got[i].msg)
	}
	wn := notificationMethods(append(direct.backlog, wantRest...))
	gn := notificationMethods(append(p.backlog, gotRest...))
	if !slices.Equal(wn, gn) {
		t.Errorf("notifications differ:\n direct: %v\n  proxy: %v", wn, gn)
	}
	if !strings.Contains(p.stderr.String(), "[agent-harness] Upstream tools (") {
		t.Errorf("no startup table on stderr:\n%s", p.stderr.String())
	}
}

// TestProxyNPMServerEverything compares @modelcontextprotocol/server-everything
// directly and through the proxy.
func TestProxyNPMServerEverything(t *testing.T) {
	t.Parallel()
	cmdline := npmServer(t, "server-everything")
	script := func(p *peer) []captured {
		var out []captured
		add := func(label string, m []byte) { out = append(out, captured{label, m}) }
		// No roots capability: the server would ask for roots at a time
		// of its choosing.
		resp := p.request(`0`, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{"sampling":{},"elicitation":{}},"clientInfo":{"name":"e2e-agent","version":"0.0.1"}}`)
		add("initialize", resp)
		p.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		add("tools/list", p.request(`1`, "tools/list", `{}`))
		for i, c := range []struct{ label, params string }{
			{"echo", `{"name":"echo","arguments":{"message":"héllo \u00e9 9007199254740993"}}`},
			{"get-sum big", `{"name":"get-sum","arguments":{"a":9007199254740993,"b":1}}`},
			{"structured content", `{"name":"get-structured-content","arguments":{"location":"New York"}}`},
			{"annotated message", `{"name":"get-annotated-message","arguments":{"messageType":"error","includeImage":true}}`},
			{"resource links", `{"name":"get-resource-links","arguments":{"count":2}}`},
			{"invalid arguments", `{"name":"get-sum","arguments":{"a":"x"}}`},
			{"unknown tool", `{"name":"no-such-tool","arguments":{}}`},
		} {
			add(c.label, p.request(fmt.Sprint(10+i), "tools/call", c.params))
		}
		p.send(rpcRequest("30", "tools/call", `{"name":"trigger-long-running-operation","arguments":{"duration":0.3,"steps":3},"_meta":{"progressToken":"pt-1"}}`))
		before, resp := p.until("30")
		progress := 0
		for _, m := range before {
			if strings.Contains(string(m), `"method":"notifications/progress"`) {
				add(fmt.Sprintf("progress %d", progress), m)
				progress++
			} else {
				p.backlog = append(p.backlog, m) // compared as a set at the end
			}
		}
		add("long running result", resp)

		p.send(rpcRequest("31", "tools/call", `{"name":"trigger-sampling-request","arguments":{"prompt":"hi","maxTokens":5}}`))
		req := p.waitFor(func(m []byte) bool { return strings.Contains(string(m), `"method":"sampling/createMessage"`) })
		add("sampling request", req)
		var r struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal(req, &r)
		p.send(`{"jsonrpc":"2.0","id":` + string(r.ID) + `,"result":{"role":"assistant","content":{"type":"text","text":"hello"},"model":"m","stopReason":"endTurn"}}`)
		before, resp = p.until("31")
		p.backlog = append(p.backlog, before...)
		add("sampling result", resp)

		for i, m := range []struct{ method, params string }{
			{"resources/list", `{}`},
			{"resources/templates/list", `{}`},
			{"resources/read", `{"uri":"demo://resource/static/document/architecture.md"}`},
			{"prompts/list", `{}`},
			{"prompts/get", `{"name":"simple-prompt"}`},
			{"ping", ``},
			{"no/such_method", `{}`},
		} {
			add(m.method, p.request(fmt.Sprint(50+i), m.method, m.params))
		}
		return out
	}
	runNPMComparison(t, cmdline, func(string) []string { return nil }, script)
}

// TestProxyNPMServerMemory compares @modelcontextprotocol/server-memory
// directly and through the proxy (each run with its own memory file).
func TestProxyNPMServerMemory(t *testing.T) {
	t.Parallel()
	cmdline := npmServer(t, "server-memory")
	dir := t.TempDir()
	env := func(run string) []string {
		return []string{"MEMORY_FILE_PATH=" + filepath.Join(dir, run+".jsonl")}
	}
	script := func(p *peer) []captured {
		var out []captured
		add := func(label string, m []byte) { out = append(out, captured{label, m}) }
		add("initialize", p.initialize())
		add("tools/list", p.request(`2`, "tools/list", `{}`))
		for i, c := range []struct{ label, params string }{
			{"create_entities", `{"name":"create_entities","arguments":{"entities":[{"name":"booking-1","entityType":"booking","observations":["room 12","n 9007199254740993"]}]}}`},
			{"create_relations", `{"name":"create_relations","arguments":{"relations":[{"from":"booking-1","to":"booking-1","relationType":"self"}]}}`},
			{"read_graph", `{"name":"read_graph","arguments":{}}`},
			{"search_nodes", `{"name":"search_nodes","arguments":{"query":"room"}}`},
			{"open_nodes", `{"name":"open_nodes","arguments":{"names":["booking-1","nope"]}}`},
			{"bad arguments", `{"name":"create_entities","arguments":{"entities":"x"}}`},
		} {
			add(c.label, p.request(fmt.Sprint(10+i), "tools/call", c.params))
		}
		return out
	}
	runNPMComparison(t, cmdline, env, script)
}
