package relay

import (
	"encoding/json"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// SEP-2575 (MCP protocol 2026-07-28, "stateless MCP"): a client may start
// with server/discover instead of initialize, and from then on every request
// carries the client's protocol version, info and capabilities in
// params._meta. A server that speaks this protocol takes a request without
// them as one of the legacy protocol, which it refuses before initialize.
const (
	methodDiscover = "server/discover"
	methodPing     = "ping"
	// methodSubscriptionsListen opens the stream of the upstream's
	// notifications; it stays open until cancelled.
	methodSubscriptionsListen = "subscriptions/listen"

	// firstStatelessVersion is the first protocol version of SEP-2575.
	firstStatelessVersion = "2026-07-28"

	metaProtocolVersion    = "io.modelcontextprotocol/protocolVersion"
	metaClientInfo         = "io.modelcontextprotocol/clientInfo"
	metaClientCapabilities = "io.modelcontextprotocol/clientCapabilities"
)

// requestMeta returns the SEP-2575 members of a request's params._meta — the
// protocol version, client info and client capabilities, as the agent sent
// them — as a JSON object to put into the proxy's own requests; version,
// when not empty, replaces the agent's protocol version. It returns nil when
// the request carries no protocol version of 2026-07-28 or later (a legacy
// request: the proxy's own requests then carry no _meta either).
func requestMeta(params []byte, version string) []byte {
	meta, _, ok := wire.Lookup(params, "_meta")
	if !ok || len(meta) == 0 || meta[0] != '{' {
		return nil
	}
	var pv, info, caps []byte
	_, _ = wire.Members(meta, func(m wire.Member) bool {
		switch {
		case m.KeyIs(metaProtocolVersion):
			pv = m.Value
		case m.KeyIs(metaClientInfo):
			info = m.Value
		case m.KeyIs(metaClientCapabilities):
			caps = m.Value
		}
		return true
	})
	agentVersion, ok := wire.Unquote(pv)
	if !ok || agentVersion < firstStatelessVersion {
		return nil
	}
	out := []byte(`{"` + metaProtocolVersion + `":`)
	if version != "" {
		out = appendQuoted(out, version)
	} else {
		out = append(out, pv...)
	}
	if info != nil {
		out = append(out, `,"`+metaClientInfo+`":`...)
		out = append(out, info...)
	}
	if caps != nil {
		out = append(out, `,"`+metaClientCapabilities+`":`...)
		out = append(out, caps...)
	}
	return append(out, '}')
}

// callVersion is the protocol version of a request: its SEP-2575
// params._meta protocol version, else the version the session's initialize
// negotiated; empty when unknown.
func (s *session) callVersion(meta []byte) string {
	if pv, _, ok := wire.Lookup(meta, metaProtocolVersion); ok {
		if v, ok := wire.Unquote(pv); ok {
			return v
		}
	}
	if v := s.version.Load(); v != nil {
		return *v
	}
	return ""
}

// requestMetaOf is a request's params._meta (nil when it has none), for
// callVersion.
func requestMetaOf(params []byte) []byte {
	meta, _, _ := wire.Lookup(params, "_meta")
	return meta
}

// discoverVersion is the protocol version the session will use after a
// successful server/discover: the agent's own when the upstream lists it
// among its supportedVersions (or lists none), else the newest listed
// version of 2026-07-28 or later. ok is false when there is none: the agent
// then falls back to initialize (the legacy handshake).
func discoverVersion(agentVersion string, result []byte) (version string, ok bool) {
	raw, _, found := wire.Lookup(result, "supportedVersions")
	if !found || len(raw) == 0 || raw[0] != '[' {
		return agentVersion, agentVersion >= firstStatelessVersion
	}
	own, best := false, ""
	if _, err := wire.Elements(raw, func(elem []byte, _ int) {
		v, ok := wire.Unquote(elem)
		switch {
		case !ok:
		case v == agentVersion:
			own = true
		case v >= firstStatelessVersion && v > best:
			best = v
		}
	}); err != nil {
		own = true // unreadable: the agent's own version is the best guess
	}
	switch {
	case own:
		return agentVersion, agentVersion >= firstStatelessVersion
	case best != "":
		return best, true
	}
	return "", false
}

// discoverListMeta returns the _meta object for the proxy's own requests
// after the agent's server/discover (params) was answered with result; ok
// is false when the session will not use the stateless protocol.
func discoverListMeta(params, result []byte) (meta []byte, ok bool) {
	agentMeta := requestMeta(params, "")
	if agentMeta == nil {
		return nil, false
	}
	pv, _, _ := wire.Lookup(agentMeta, metaProtocolVersion)
	agentVersion, _ := wire.Unquote(pv)
	version, ok := discoverVersion(agentVersion, result)
	if !ok {
		return nil, false
	}
	if version == agentVersion {
		return agentMeta, true
	}
	return requestMeta(params, version), true
}

// listParams is the params object of the proxy's own tools/list: the
// SEP-2575 _meta (nil for the legacy protocol) and the cursor (nil for the
// first page).
func listParams(meta, cursor []byte) []byte {
	b := []byte{'{'}
	if meta != nil {
		b = append(b, `"_meta":`...)
		b = append(b, meta...)
	}
	if cursor != nil {
		if meta != nil {
			b = append(b, ',')
		}
		b = append(b, `"cursor":`...)
		b = append(b, cursor...)
	}
	return append(b, '}')
}

func appendQuoted(b []byte, s string) []byte {
	q, _ := json.Marshal(s)
	return append(b, q...)
}
