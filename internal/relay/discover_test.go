package relay

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// statelessMeta is the SEP-2575 _meta triple a go-sdk client sends.
const statelessMeta = `"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{"roots":{"listChanged":true}}`

const discoverRequest = `{"jsonrpc":"2.0","id":0,"method":"server/discover","params":{"_meta":{` + statelessMeta + `,"progressToken":"p"}}}`

const discoverResult = `{"supportedVersions":["2026-07-28","2025-11-25"],"capabilities":{"tools":{"listChanged":true}},"_meta":{"io.modelcontextprotocol/serverInfo":{"name":"fake","version":"1"}}}`

// ownLists returns the params of the proxy's own tools/list requests the
// upstream received, in order.
func ownLists(t *testing.T, up *fakeUpstream) []string {
	t.Helper()
	var out []string
	for _, l := range up.lines() {
		env, err := wire.ParseEnvelope([]byte(l))
		if err != nil {
			t.Fatalf("upstream got invalid JSON %q", l)
		}
		if env.Method == "tools/list" && strings.HasPrefix(string(env.ID), `"agent-harness/`) {
			out = append(out, string(env.Params))
		}
	}
	return out
}

func TestRelayDiscover(t *testing.T) {
	listedMeta := `{"_meta":{` + statelessMeta + `}}`
	tests := []struct {
		name string
		up   *fakeUpstream
		// steps: each agent line is sent and its answer compared.
		steps     [][2]string
		wantLists []string
		extras    bool
	}{
		{"discover starts the session; the listing carries the agent's _meta",
			&fakeUpstream{tools: testTools, pageSize: 2, strict: true, discover: discoverResult},
			[][2]string{{discoverRequest, `{"jsonrpc":"2.0","id":0,"result":` + discoverResult + `}`}},
			[]string{listedMeta, `{"_meta":{` + statelessMeta + `},"cursor":"2"}`}, false},
		{"a failed discover passes through; initialize starts the session",
			&fakeUpstream{tools: testTools, strict: true},
			[][2]string{
				{discoverRequest, `{"jsonrpc":"2.0","id":0,"error":{"code":-32601,"message":"method not found"}}`},
				{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
					`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`},
			},
			[]string{`{}`}, false},
		{"no stateless version in common: initialize starts the session",
			&fakeUpstream{tools: testTools, strict: true, discover: `{"supportedVersions":["2025-11-25"],"capabilities":{"tools":{}}}`},
			[][2]string{
				{discoverRequest, `{"jsonrpc":"2.0","id":0,"result":{"supportedVersions":["2025-11-25"],"capabilities":{"tools":{}}}}`},
				{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
					`{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"2025-06-18","capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}}`},
			},
			[]string{`{}`}, false},
		{"an upstream without tools gets the tools capability for the audit tools",
			&fakeUpstream{strict: true, discover: `{"supportedVersions":["2026-07-28"],"capabilities":{"prompts":{}}}`},
			[][2]string{{discoverRequest, `{"jsonrpc":"2.0","id":0,"result":{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{},"prompts":{}}}}`}},
			nil, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				pl := &recordingPipeline{}
				a := startRelay(t, tt.up, func(o *Options) {
					o.Pipeline = pl
					o.KeyFieldNames = []string{"idempotency_key"}
					if tt.extras {
						o.ExtraTools = []json.RawMessage{json.RawMessage(`{"name":"cuonztech__get_report"}`)}
					}
				})
				for i, st := range tt.steps {
					a.send(st[0])
					if got := a.recv(); got != st[1] {
						t.Errorf("answer %d:\n got %s\nwant %s", i, got, st[1])
					}
				}
				if !tt.extras {
					a.send(`{"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":1},"_meta":{` + statelessMeta + `}}}`)
					if got := a.recv(); !strings.Contains(got, "called create_booking") {
						t.Errorf("call: %s", got)
					}
				}
				if err := a.end(); err != nil {
					t.Fatalf("Run: %v", err)
				}
				if got := ownLists(t, tt.up); !slices.Equal(got, tt.wantLists) {
					t.Errorf("the proxy's tools/list params:\n got %q\nwant %q", got, tt.wantLists)
				}
				if !tt.extras && (len(pl.calls) != 1 || pl.calls[0].Class != classify.Write) {
					t.Errorf("pipeline saw %+v, want one write call", pl.calls)
				}
				if want := "[agent-harness] Upstream tools ("; strings.Count(a.stderr.String(), want) != 1 {
					t.Errorf("want one startup table; stderr:\n%s", a.stderr.String())
				}
			})
		})
	}
}

// TestRelayLazyListing: when the agent's first request is not a handshake
// the proxy saw, the tools are listed before it, so a call is never judged
// as one of an unknown tool when the upstream lists the tool.
func TestRelayLazyListing(t *testing.T) {
	t.Run("stateless call without handshake", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := &fakeUpstream{tools: testTools, strict: true}
			pl := &recordingPipeline{}
			a := startRelay(t, up, func(o *Options) { o.Pipeline = pl })
			call := `{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"create_booking","arguments":{},"_meta":{` + statelessMeta + `,"progressToken":1}}}`
			a.send(call)
			if got := a.recv(); got != `{"jsonrpc":"2.0","id":"c","result":{"content":[{"type":"text","text":"called create_booking"}]}}` {
				t.Errorf("call: %s", got)
			}
			a.end()
			if len(pl.calls) != 1 || pl.calls[0].Class != classify.Write || !pl.calls[0].AcceptsKey {
				t.Errorf("pipeline saw %+v, want a write call accepting a key", pl.calls)
			}
			lines := up.lines()
			if len(lines) < 2 || !strings.Contains(lines[0], `"method":"tools/list","params":{"_meta":{`+statelessMeta+`}}`) || lines[1] != strings.Replace(call, `"id":"c"`, `"id":1`, 1) {
				t.Errorf("upstream got %q, want the listing with the call's _meta, then the call unchanged but for the proxy's id", lines)
			}
			if !strings.Contains(a.stderr.String(), "[agent-harness] Upstream tools (3):\n") {
				t.Errorf("no startup table:\n%s", a.stderr.String())
			}
		})
	})
	t.Run("refused before initialize, listed after it", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			up := &fakeUpstream{tools: testTools, strict: true}
			var got [][]ToolInfo
			a := startRelay(t, up, func(o *Options) { o.OnTools = func(ts []ToolInfo) { got = append(got, ts) } })
			a.send(`{"jsonrpc":"2.0","id":1,"method":"resources/list","params":{}}`)
			if r := a.recv(); r != `{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"method \"resources/list\" is invalid during session initialization"}}` {
				t.Errorf("resources/list: %s", r)
			}
			a.initialize()
			a.end()
			if len(got) != 1 || len(got[0]) != 3 {
				t.Errorf("OnTools got %v, want the 3 tools once", got)
			}
			if want := "[agent-harness] could not list the upstream's tools before the agent's first request (resources/list): tools/list: the upstream answered with an error: "; !strings.Contains(a.stderr.String(), want) {
				t.Errorf("stderr lacks %q:\n%s", want, a.stderr.String())
			}
			if n := len(ownLists(t, up)); n != 2 {
				t.Errorf("%d own listings, want 2 (the refused one and the one after initialize)", n)
			}
		})
	})
}

func TestRequestMeta(t *testing.T) {
	tests := []struct {
		name, params, version, want string
	}{
		{"triple copied, other members dropped", `{"_meta":{"progressToken":1,` + statelessMeta + `,"x":[1]}}`, "", `{` + statelessMeta + `}`},
		{"order normalised", `{"_meta":{"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/protocolVersion":"2027-01-01"}}`, "",
			`{"io.modelcontextprotocol/protocolVersion":"2027-01-01","io.modelcontextprotocol/clientCapabilities":{}}`},
		{"version replaced", `{"_meta":{` + statelessMeta + `}}`, "2027-01-01",
			`{"io.modelcontextprotocol/protocolVersion":"2027-01-01",` + statelessMeta[len(`"io.modelcontextprotocol/protocolVersion":"2026-07-28",`):] + `}`},
		{"legacy version", `{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-11-25"}}`, "", ``},
		{"no version", `{"_meta":{"io.modelcontextprotocol/clientInfo":{}}}`, "", ``},
		{"version not a string", `{"_meta":{"io.modelcontextprotocol/protocolVersion":20260728}}`, "", ``},
		{"no _meta", `{"name":"x"}`, "", ``},
		{"_meta not an object", `{"_meta":[]}`, "", ``},
		{"no params", ``, "", ``},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(requestMeta([]byte(tt.params), tt.version)); got != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestDiscoverVersion(t *testing.T) {
	tests := []struct {
		name, agent, result, want string
		ok                        bool
	}{
		{"agent's version supported", "2026-07-28", `{"supportedVersions":["2027-01-01","2026-07-28"]}`, "2026-07-28", true},
		{"newest stateless version otherwise", "2026-07-28", `{"supportedVersions":["2025-11-25","2027-01-01","2026-09-01"]}`, "2027-01-01", true},
		{"only legacy versions", "2026-07-28", `{"supportedVersions":["2025-11-25","2025-06-18"]}`, "", false},
		{"empty list", "2026-07-28", `{"supportedVersions":[]}`, "", false},
		{"no list", "2026-07-28", `{"capabilities":{}}`, "2026-07-28", true},
		{"list not an array", "2026-07-28", `{"supportedVersions":"2026-07-28"}`, "2026-07-28", true},
		{"non-strings ignored", "2026-07-28", `{"supportedVersions":[1,null,"2026-07-28"]}`, "2026-07-28", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := discoverVersion(tt.agent, []byte(tt.result))
			if got != tt.want || ok != tt.ok {
				t.Errorf("got %q %v, want %q %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}

func FuzzDiscoverListMeta(f *testing.F) {
	f.Add([]byte(`{"_meta":{`+statelessMeta+`}}`), []byte(discoverResult))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}`), []byte(`{"supportedVersions":["2027-01-01"]}`))
	f.Add([]byte(`{"_meta":{"io.modelcontextprotocol/protocolVersion":"\u0032026-07-28","io.modelcontextprotocol/clientInfo":{"a":[1,2,{}]}}}`), []byte(`{}`))
	f.Add([]byte(`{"_meta":`), []byte(`[`))
	f.Fuzz(func(t *testing.T, params, result []byte) {
		meta, ok := discoverListMeta(params, result)
		if !ok {
			if meta != nil {
				t.Fatalf("not ok but meta %q", meta)
			}
			return
		}
		p := listParams(meta, []byte(`"c"`))
		if !json.Valid(p) {
			t.Fatalf("invalid listing params %q from %q / %q", p, params, result)
		}
		pv, _, _ := wire.Lookup(meta, metaProtocolVersion)
		if v, ok := wire.Unquote(pv); !ok || v < firstStatelessVersion {
			t.Fatalf("meta %q has no stateless protocol version", meta)
		}
	})
}

// TestRelaySubscriptionStreamDoesNotDelayTheEnd: subscriptions/listen stays
// open for the whole session; at the agent's EOF the proxy does not wait
// the stop grace for its answer (in the bubble's deterministic clock).
func TestRelaySubscriptionStreamDoesNotDelayTheEnd(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := startRelay(t, &fakeUpstream{tools: testTools, discover: discoverResult}, nil)
		a.send(discoverRequest)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":1,"method":"subscriptions/listen","params":{"notifications":{"toolsListChanged":true},"_meta":{` + statelessMeta + `}}}`)
		synctest.Wait()
		start := time.Now()
		if err := a.end(); err != nil {
			t.Fatalf("Run: %v", err)
		}
		if d := time.Since(start); d != 0 {
			t.Errorf("the session end waited %v for the open subscription", d)
		}
	})
}

// TestRelayOnServed: OnServed is called once, at the first request that
// is not server/discover or ping — a version probe's requests do not count
// (behaviour §5.2).
func TestRelayOnServed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		up := &fakeUpstream{tools: testTools, discover: `{"supportedVersions":["2026-07-28"],"capabilities":{"tools":{}},"serverInfo":{"name":"fake","version":"1"}}`}
		var served atomic.Int32
		a := startRelay(t, up, func(o *Options) { o.OnServed = func() { served.Add(1) } })
		a.send(discoverRequest)
		a.recv()
		a.send(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{` + statelessMeta + `}}}`)
		a.recv()
		synctest.Wait()
		if n := served.Load(); n != 0 {
			t.Fatalf("OnServed called %d times for a probe's requests", n)
		}
		for i := range 2 {
			a.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/list","params":{"_meta":{`+statelessMeta+`}}}`, 2+i))
			a.recv()
		}
		a.end()
		if n := served.Load(); n != 1 {
			t.Errorf("OnServed called %d times, want once", n)
		}
	})
}
