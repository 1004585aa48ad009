package sse

// The MCP Streamable HTTP headers both sides of the proxy read and write.
const (
	// HeaderSessionID carries the MCP session id (per side: the agent's
	// session with the proxy, the proxy's with the upstream).
	HeaderSessionID = "Mcp-Session-Id"
	// HeaderProtocolVersion carries the negotiated MCP protocol version.
	HeaderProtocolVersion = "Mcp-Protocol-Version"
)
