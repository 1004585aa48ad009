package httpupstream

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/mcpver"
	"github.com/cuonztech/agent-harness/internal/relay"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// textLost is the text of the answer that replaces one the Conn could not
// make (see answer): no peer text, so it is always valid.
const textLost = "agent-harness: the upstream's HTTP answer could not be reported; the outcome is unknown"

// answer gives the relay a response of the proxy's own to a request that
// got no answer from the upstream: for a tools/call whose request never
// reached a tool (notExec) an isError result marked with
// relay.NotExecutedMark, for another tools/call an isError result marked
// unknown, else a JSON-RPC error (the relay judges it an unknown outcome).
//
// text may hold peer text (a Retry-After, a Location, an error naming a
// server's bytes): it is encoded as a JSON string (ownAnswer), never with
// Go's quoting, whose \x and \U escapes are not JSON. The line is checked
// with the relay's own parser before it is delivered; one that does not
// parse is replaced by a fixed answer of unknown outcome without the mark,
// so a line the proxy made — whose mark holds the process's secret — can
// never reach the relay unparsed, which would forward it raw to the agent.
func (c *Conn) answer(env wire.Envelope, notExec bool, text string) {
	version := c.requestVersion(env)
	b := makeAnswer(env, notExec, text, version)
	if !ownAnswerValid(b, env.ID) {
		c.opts.Logf("WARNING: agent-harness could not encode its own answer to a %s; the agent gets an answer of unknown outcome", messageKind(env))
		b = ownAnswer(env, false, textLost, version)
		if !ownAnswerValid(b, env.ID) {
			return // the id itself is unusable: the call ends at the relay's timeout (unknown)
		}
	}
	c.deliver(b)
}

// makeAnswer is ownAnswer; a test replaces it to check answer's guard.
var makeAnswer = ownAnswer

// requestVersion is the protocol revision of the agent's request env: its
// SEP-2575 params._meta protocol version, else the version the upstream's
// initialize result named; empty when unknown.
func (c *Conn) requestVersion(env wire.Envelope) string {
	if meta, _, ok := wire.Lookup(env.Params, "_meta"); ok {
		if pv, _, ok := wire.Lookup(meta, "io.modelcontextprotocol/protocolVersion"); ok {
			if v, ok := wire.Unquote(pv); ok {
				return v
			}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.version
}

// ownAnswer is the line answer delivers; a tools/call result is valid for
// revision version (resultType "complete" from 2026-07-28 on, before the
// _meta that pipeline's notExecutedProof expects at the end).
func ownAnswer(env wire.Envelope, notExec bool, text, version string) []byte {
	b := make([]byte, 0, 160+len(text))
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	b = append(b, env.ID...)
	if env.Method != "tools/call" {
		b = append(b, `,"error":{"code":-32603,"message":`...)
		b = appendJSONString(b, text)
		return append(b, "}}"...)
	}
	// A tool result the agent's model sees. The not-executed mark holds
	// the process's secret, which the pipeline checks and removes: an
	// upstream cannot send it. The unknown mark makes the judge count the
	// outcome as unknown (it may have executed), not as a rejection
	// (relay.OutcomeMetaKey).
	mark := "unknown"
	if notExec {
		mark = relay.NotExecutedMark
	}
	b = append(b, `,"result":{"content":[{"type":"text","text":`...)
	b = appendJSONString(b, text)
	b = append(b, `}],"isError":true`...)
	if mcpver.RequiresResultType(version) {
		b = append(b, `,"resultType":"complete"`...)
	}
	b = append(b, `,"_meta":{`...)
	b = appendJSONString(b, relay.OutcomeMetaKey)
	b = append(b, ':')
	b = appendJSONString(b, mark)
	return append(b, "}}}"...)
}

// ownAnswerValid reports whether b is valid UTF-8 and one JSON-RPC
// response the relay parses, with the request's id.
func ownAnswerValid(b, id []byte) bool {
	if !utf8.Valid(b) {
		return false
	}
	env, err := wire.ParseEnvelope(b)
	return err == nil && !env.HasMethod && env.ID != nil && bytes.Equal(env.ID, id) && env.IsResponse()
}

// appendJSONString appends s as a JSON string: invalid UTF-8 becomes
// U+FFFD, control characters, quotes, backslashes and U+2028/U+2029 are
// escaped; <, > and & are kept as they are (the text is read, not
// embedded in HTML).
func appendJSONString(dst []byte, s string) []byte {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(s) != nil {
		return append(dst, `""`...) // unreachable: a string always encodes
	}
	return append(dst, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...)
}

// location is the redirect's Location header, cut and escaped (short).
func location(resp *http.Response) string {
	loc := resp.Header.Get("Location")
	if loc == "" {
		return "none"
	}
	return short(loc)
}

// short makes peer text fit a line of the proxy's own: cut to maxLocation
// bytes, control characters, invalid UTF-8 and unprintable runes written
// as Go escapes (\x1b, \xff, \U000e0001) — plain text, which a JSON
// answer then encodes as a string (appendJSONString).
func short(v string) string {
	q := strconv.Quote(escape.Shorten(v, maxLocation))
	return q[1 : len(q)-1]
}
