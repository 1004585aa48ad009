package httpupstream

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// headerUpstream is a loopback MCP upstream that records the headers of
// every POST by its body's method and answers: initialize with version,
// tools/list with one tool whose region argument is mirrored
// (x-mcp-header "Region"), any other request with an empty result.
type headerUpstream struct {
	srv     *httptest.Server
	mu      sync.Mutex
	headers map[string][]http.Header
}

func newHeaderUpstream(t *testing.T, version string) *headerUpstream {
	u := &headerUpstream{headers: map[string][]http.Header{}}
	u.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.WriteHeader(http.StatusMethodNotAllowed)
			return
		}
		body, _ := io.ReadAll(r.Body)
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		_ = json.Unmarshal(body, &m)
		u.mu.Lock()
		u.headers[m.Method] = append(u.headers[m.Method], r.Header.Clone())
		u.mu.Unlock()
		if m.ID == nil {
			w.WriteHeader(http.StatusAccepted)
			return
		}
		result := `{}`
		switch m.Method {
		case "initialize":
			result = `{"protocolVersion":"` + version + `","capabilities":{},"serverInfo":{"name":"s","version":"1"}}`
		case "tools/list":
			result = `{"tools":[{"name":"create_booking","inputSchema":{"type":"object","properties":{"room":{"type":"string"},"region":{"type":"string","x-mcp-header":"Region"},"opts":{"type":"object","properties":{"vip":{"type":"boolean","x-mcp-header":"Vip"}}}}}}]}`
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"jsonrpc":"2.0","id":`+string(m.ID)+`,"result":`+result+`}`)
	}))
	t.Cleanup(u.srv.Close)
	return u
}

// got returns the headers of the n-th POST of method (0-based).
func (u *headerUpstream) got(t *testing.T, method string, n int) http.Header {
	t.Helper()
	u.mu.Lock()
	defer u.mu.Unlock()
	if len(u.headers[method]) <= n {
		t.Fatalf("the upstream got %d POSTs of %s, want more than %d", len(u.headers[method]), method, n)
	}
	return u.headers[method][n]
}

// exchange sends each message over c and waits for the answer of each
// request (an id) before the next, failing after a bound.
func exchange(t *testing.T, c *Conn, msgs ...string) {
	t.Helper()
	for _, msg := range msgs {
		if err := c.WriteMessage([]byte(msg + "\n")); err != nil {
			t.Fatal(err)
		}
		var m struct {
			ID json.RawMessage `json:"id"`
		}
		_ = json.Unmarshal([]byte(msg), &m)
		if m.ID == nil {
			continue
		}
		got := make(chan string, 1)
		go func() {
			b, _ := c.ReadMessage()
			got <- string(b)
		}()
		select {
		case <-got:
		case <-time.After(10 * time.Second):
			t.Fatalf("no answer to %s", msg)
		}
	}
}

const (
	initMsg2026  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2026-07-28","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`
	initMsg2025  = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"a","version":"1"}}}`
	initedMsg    = `{"jsonrpc":"2.0","method":"notifications/initialized"}`
	listMsg      = `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`
	mirrorCall   = `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"create_booking","arguments":{"room":"1","region":"us-west1","opts":{"vip":true}}}}`
	statelessMsg = `{"jsonrpc":"2.0","id":%s,"method":"%s","params":{%s"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`
)

func wantHeaders(t *testing.T, h http.Header, want map[string]string) {
	t.Helper()
	for name, v := range want {
		if got := h.Values(name); v == "" && len(got) > 0 {
			t.Errorf("%s: %q, want none", name, got)
		} else if v != "" && (len(got) != 1 || got[0] != v) {
			t.Errorf("%s: %q, want %q", name, got, v)
		}
	}
}

// TestMirroredHeadersStdioAgent2026Session (issue 21, SPEC §20.1): a stdio
// agent's tools/call in a 2026-07-28 session reaches the HTTP upstream
// with MCP-Protocol-Version, Mcp-Method, Mcp-Name and the Mcp-Param-*
// headers the tool's x-mcp-header annotations name, all from its body.
func TestMirroredHeadersStdioAgent2026Session(t *testing.T) {
	u := newHeaderUpstream(t, "2026-07-28")
	c := New(Options{URL: u.srv.URL})
	t.Cleanup(func() { _ = c.Close() })
	exchange(t, c, initMsg2026, initedMsg, listMsg, mirrorCall)
	wantHeaders(t, u.got(t, "tools/list", 0), map[string]string{
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list", "Mcp-Name": "",
	})
	wantHeaders(t, u.got(t, "tools/call", 0), map[string]string{
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "create_booking",
		"Mcp-Param-Region": "us-west1", "Mcp-Param-Vip": "true",
	})
}

// TestMirroredHeadersStateless2026 (issue 21, SPEC §20.1): stateless
// 2026-07-28 requests (no initialize, the version in params._meta) carry
// the version header and the mirrored headers of their own body;
// Mcp-Name is Base64-encoded when the name is not plain ASCII, and
// resources/read names its uri.
func TestMirroredHeadersStateless2026(t *testing.T) {
	u := newHeaderUpstream(t, "2026-07-28")
	c := New(Options{URL: u.srv.URL})
	t.Cleanup(func() { _ = c.Close() })
	exchange(t, c,
		fmt.Sprintf(statelessMsg, "1", "tools/list", ""),
		fmt.Sprintf(statelessMsg, "2", "tools/call", `"name":"create_booking","arguments":{"region":"eu 1 "},`),
		fmt.Sprintf(statelessMsg, "3", "tools/call", `"name":"réserver","arguments":{},`),
		fmt.Sprintf(statelessMsg, "4", "resources/read", `"uri":"file:///a.txt",`),
	)
	wantHeaders(t, u.got(t, "tools/list", 0), map[string]string{
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/list",
	})
	wantHeaders(t, u.got(t, "tools/call", 0), map[string]string{
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "create_booking",
		"Mcp-Param-Region": "=?base64?ZXUgMSA=?=", "Mcp-Param-Vip": "",
	})
	wantHeaders(t, u.got(t, "tools/call", 1), map[string]string{
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call", "Mcp-Name": "=?base64?csOpc2VydmVy?=",
	})
	wantHeaders(t, u.got(t, "resources/read", 0), map[string]string{
		"MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "resources/read", "Mcp-Name": "file:///a.txt",
	})
}

// TestMirroredHeadersHTTPAgent (issue 21, SPEC §20.1): an HTTP agent's
// end-to-end headers are those of its latest POST, which may be another
// message's: its custom headers are forwarded, but the mirrored ones
// (which describe that other body) never are — each POST carries the
// headers of its own body, which equal what a conforming agent sent with
// it, as the proxy changes no argument.
func TestMirroredHeadersHTTPAgent(t *testing.T) {
	u := newHeaderUpstream(t, "2026-07-28")
	agent := http.Header{
		"X-Tenant":             {"acme"},
		"Mcp-Protocol-Version": {"2026-07-28"},
		"Mcp-Method":           {"tools/list"},
		"Mcp-Name":             {"other_tool"},
		"Mcp-Param-Other":      {"x"},
	}
	c := New(Options{URL: u.srv.URL, AgentHeader: func() http.Header { return agent }})
	t.Cleanup(func() { _ = c.Close() })
	exchange(t, c, initMsg2026, initedMsg, listMsg, mirrorCall)
	wantHeaders(t, u.got(t, "tools/call", 0), map[string]string{
		"X-Tenant": "acme", "MCP-Protocol-Version": "2026-07-28", "Mcp-Method": "tools/call",
		"Mcp-Name": "create_booking", "Mcp-Param-Region": "us-west1", "Mcp-Param-Vip": "true",
		"Mcp-Param-Other": "",
	})
	wantHeaders(t, u.got(t, "notifications/initialized", 0), map[string]string{
		"X-Tenant": "acme", "Mcp-Method": "", "Mcp-Name": "", "Mcp-Param-Other": "",
	})
}

// TestMirroredHeaders2025Session (issue 21, SPEC §20.1): a 2025-11-25
// session gets its version header and none of the 2026 mirrored headers,
// even from an HTTP agent's latest POST.
func TestMirroredHeaders2025Session(t *testing.T) {
	u := newHeaderUpstream(t, "2025-11-25")
	agent := http.Header{"Mcp-Method": {"tools/list"}, "Mcp-Name": {"other_tool"}}
	c := New(Options{URL: u.srv.URL, AgentHeader: func() http.Header { return agent }})
	t.Cleanup(func() { _ = c.Close() })
	exchange(t, c, initMsg2025, initedMsg, listMsg, mirrorCall)
	wantHeaders(t, u.got(t, "tools/call", 0), map[string]string{
		"MCP-Protocol-Version": "2025-11-25", "Mcp-Method": "", "Mcp-Name": "",
		"Mcp-Param-Region": "", "Mcp-Param-Vip": "",
	})
}
