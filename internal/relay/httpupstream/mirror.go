package httpupstream

import (
	"encoding/base64"
	"net/http"
	"strings"

	"github.com/cuonztech/agent-harness/internal/mcpver"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// The request metadata headers of the 2026-07-28 Streamable HTTP
// transport: copies of body fields, which a server compares with the body
// and refuses (400, HeaderMismatch) when they differ or are missing.
const (
	headerMethod = "Mcp-Method"
	headerName   = "Mcp-Name"
	paramPrefix  = "Mcp-Param-"
	metaVersion  = "io.modelcontextprotocol/protocolVersion"
)

// mirrored reports whether an agent's header is one the transport mirrors
// from a body: it describes the agent's POST it came with, never another
// message (behaviour §8.1).
func mirrored(name string) bool {
	name = http.CanonicalHeaderKey(name)
	return name == headerVersion || name == headerMethod || name == headerName ||
		strings.HasPrefix(name, paramPrefix)
}

// messageVersion is the protocol version a 2026-style message carries in
// params._meta (stateless requests); "" when it carries none.
func messageVersion(env wire.Envelope) string {
	if env.Params == nil {
		return ""
	}
	meta, _, ok := wire.Lookup(env.Params, "_meta")
	if !ok {
		return ""
	}
	v, _, ok := wire.Lookup(meta, metaVersion)
	if !ok {
		return ""
	}
	s, _ := wire.Unquote(v)
	return s
}

// setMirrored sets the request metadata headers of one POST, derived from
// its own body: the body's _meta version or else the negotiated one is
// the MCP-Protocol-Version; from 2026-07-28 on, a request also gets
// Mcp-Method and, for tools/call, resources/read and prompts/get,
// Mcp-Name. The proxy changes no field they copy, so they equal the
// headers a conforming agent sent with this message. negotiated is the
// version of the session's initialize ("" for none). It reports whether
// the message is a 2026-07-28 request (which also gets Mcp-Param-*).
func setMirrored(h http.Header, env wire.Envelope, negotiated string) bool {
	v := messageVersion(env)
	if v == "" {
		v = negotiated
	}
	if v != "" {
		h.Set(headerVersion, v)
	}
	if !mcpver.RequiresResultType(v) || !env.IsRequest() || env.Method == "" {
		return false
	}
	h.Set(headerMethod, headerValue(env.Method))
	var field string
	switch env.Method {
	case "tools/call", "prompts/get":
		field = "name"
	case "resources/read":
		field = "uri"
	default:
		return true
	}
	if raw, _, ok := wire.Lookup(env.Params, field); ok {
		if s, ok := wire.Unquote(raw); ok {
			h.Set(headerName, headerValue(s))
		}
	}
	return true
}

// headerValue is s as a header value (MCP 2026-07-28, Value Encoding):
// as is when it is visible ASCII, space or tab without leading or
// trailing white space and not of the sentinel's form; otherwise
// =?base64?…?= of its UTF-8 bytes.
func headerValue(s string) string {
	safe := s == strings.TrimSpace(s) && s != "" &&
		!(strings.HasPrefix(s, "=?base64?") && strings.HasSuffix(s, "?="))
	for i := 0; safe && i < len(s); i++ {
		c := s[i]
		safe = c == ' ' || c == '\t' || (c >= 0x21 && c <= 0x7e)
	}
	if safe {
		return s
	}
	return "=?base64?" + base64.StdEncoding.EncodeToString([]byte(s)) + "?="
}

// paramHeader is one x-mcp-header annotation of a tool's inputSchema: the
// chain of properties keys to the argument and the header's name part.
type paramHeader struct {
	path []string
	name string
}

// noteTools keeps the x-mcp-header annotations of the tools in a
// tools/list result the upstream sent, for the Mcp-Param-* headers of
// later calls (each listing replaces a tool's earlier annotations).
func (c *Conn) noteTools(msg []byte) {
	env, err := wire.ParseEnvelope(msg)
	if err != nil || env.Result == nil {
		return
	}
	tools, _, ok := wire.Lookup(env.Result, "tools")
	if !ok {
		return
	}
	found := map[string][]paramHeader{}
	_, _ = wire.Elements(tools, func(tool []byte, _ int) {
		raw, _, ok := wire.Lookup(tool, "name")
		if !ok {
			return
		}
		name, ok := wire.Unquote(raw)
		if !ok {
			return
		}
		var hs []paramHeader
		if schema, _, ok := wire.Lookup(tool, "inputSchema"); ok {
			hs = schemaHeaders(schema, nil, hs)
		}
		found[name] = hs
	})
	c.mu.Lock()
	if c.params == nil {
		c.params = map[string][]paramHeader{}
	}
	for name, hs := range found {
		c.params[name] = hs
	}
	c.mu.Unlock()
}

// schemaHeaders appends the annotations statically reachable from schema
// through properties keys (MCP 2026-07-28, Schema Extension).
func schemaHeaders(schema []byte, path []string, hs []paramHeader) []paramHeader {
	props, _, ok := wire.Lookup(schema, "properties")
	if !ok {
		return hs
	}
	_, _ = wire.Members(props, func(m wire.Member) bool {
		key, ok := wire.Unquote(m.Key)
		if !ok {
			return true
		}
		p := append(append([]string(nil), path...), key)
		if raw, _, ok := wire.Lookup(m.Value, "x-mcp-header"); ok {
			if name, ok := wire.Unquote(raw); ok && name != "" {
				hs = append(hs, paramHeader{path: p, name: name})
			}
		}
		hs = schemaHeaders(m.Value, p, hs)
		return true
	})
	return hs
}

// setParams sets the Mcp-Param-* headers of a tools/call from its
// arguments and the tool's annotations; an argument absent or null gets
// none (MCP 2026-07-28, Custom Headers from Tool Parameters).
func setParams(h http.Header, env wire.Envelope, hs []paramHeader) {
	args, _, ok := wire.Lookup(env.Params, "arguments")
	if !ok {
		return
	}
	for _, ph := range hs {
		v := args
		for _, k := range ph.path {
			if v, _, ok = wire.Lookup(v, k); !ok {
				break
			}
		}
		if !ok || wire.IsNull(v) {
			continue
		}
		var s string
		if str, isStr := wire.Unquote(v); isStr {
			s = str
		} else {
			s = string(v) // an integer or boolean, as the body spells it
		}
		h.Set(paramPrefix+ph.name, headerValue(s))
	}
}
