package fault

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/mcpver"
)

// MCP protocol versions whose additions matter to an injected result.
const (
	// VersionAudio (2025-03-26) added audio content.
	VersionAudio = "2025-03-26"
	// VersionStructured (2025-06-18) added outputSchema, structuredContent
	// and resource_link content.
	VersionStructured = "2025-06-18"
	// VersionResultType (2026-07-28) requires resultType in every result:
	// a CallToolResult says "complete" (mcpver.ResultType).
	VersionResultType = mcpver.ResultType
)

// MetaRetryAfter is the _meta key of the F2 retry_after (seconds) when the
// result cannot carry structuredContent (behaviour §3.3).
const MetaRetryAfter = "agent-harness/retryAfter"

// hasVersion reports whether the call's protocol version is min or later.
// An unknown version (empty, or not of the form YYYY-MM-DD) counts as the
// newest: every feature is allowed.
func (c Call) hasVersion(min string) bool {
	v := c.ProtocolVersion
	if !mcpver.IsDate(v) {
		return true
	}
	return v >= min
}

// requiresResultType reports whether c's protocol version is known and
// requires a result's resultType (2026-07-28 or later). An unknown
// version gets none: a client treats an absent resultType as "complete"
// (MCP 2026-07-28, CallToolResult.resultType).
func (c Call) requiresResultType() bool {
	return mcpver.RequiresResultType(c.ProtocolVersion)
}

// Structured reports whether an injected result for c may carry
// structuredContent: the tool declares no outputSchema (a client validates
// structuredContent against it even when isError is true) and the
// protocol version has structuredContent.
func (c Call) Structured() bool {
	return !c.OutputSchema && c.hasVersion(VersionStructured)
}

// validatesOutput reports whether c's client checks results against the
// tool's outputSchema (the tool declares one and the version has them).
func (c Call) validatesOutput() bool {
	return c.OutputSchema && c.hasVersion(VersionStructured)
}

// Deliver returns result as the agent must receive it for call c: a
// well-formed CallToolResult of c's protocol version that a client
// validating it (the TypeScript SDK's Client, the go-sdk client) accepts
// as a tool result, never turns into an exception (behaviour §3.3).
//
//   - content is required, with at least one item; each item is rebuilt
//     from the members the host checked (text; image and audio: base64
//     data, mimeType; resource_link: uri, name, title, description,
//     mimeType; resource: uri, mimeType, text or base64 blob). Other
//     members (annotations, an item's _meta) are dropped.
//   - structuredContent, which must be an object, is dropped when the tool
//     declares an outputSchema or the version predates it.
//   - _meta, which must be an object, keeps its members except those
//     reserved by MCP (progressToken, io.modelcontextprotocol/…).
//   - Other members are dropped.
//
// For a tool with an outputSchema (and a version that has them) the result
// must have isError true: a client requires a result without isError to
// carry structuredContent matching the schema, which the host cannot check.
//
// Deliver is idempotent, and keeps the bytes of a result that needs no
// change (the built-in results).
//
// # Errors
//
// A result that cannot be made well-formed: not an object, content
// missing, empty or with an item that is not valid for the version,
// isError not a boolean, structuredContent or _meta not an object, or a
// non-error result for a tool whose outputSchema the client checks.
func Deliver(result json.RawMessage, c Call) (json.RawMessage, error) {
	if !utf8.Valid(result) {
		return nil, errors.New("the result is not valid UTF-8")
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(result, &m); err != nil || m == nil {
		return nil, errors.New("the result is not a JSON object")
	}
	isError := false
	if raw, ok := m["isError"]; ok {
		if err := json.Unmarshal(raw, &isError); err != nil || isNull(raw) {
			return nil, errors.New(`"isError" must be true or false`)
		}
	}
	if !isError && c.validatesOutput() {
		return nil, errors.New(`the tool declares an outputSchema, so a result without "isError": true must carry structuredContent matching it, which the host cannot check; inject an error result`)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(m["content"], &items); err != nil || items == nil {
		return nil, errors.New(`"content" must be an array`)
	}
	if len(items) == 0 {
		return nil, errors.New(`"content" is empty: the model would see nothing`)
	}
	var b bytes.Buffer
	b.WriteString(`{"content":[`)
	for i, raw := range items {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := appendItem(&b, raw, c); err != nil {
			return nil, fmt.Errorf("content item %d: %w", i, err)
		}
	}
	b.WriteByte(']')
	if raw, ok := m["structuredContent"]; ok {
		if !isObject(raw) {
			return nil, errors.New(`"structuredContent" must be an object`)
		}
		if c.Structured() {
			b.WriteString(`,"structuredContent":`)
			b.Write(compact(raw))
		}
	}
	if _, ok := m["isError"]; ok {
		fmt.Fprintf(&b, `,"isError":%t`, isError)
	}
	if c.requiresResultType() {
		b.WriteString(`,"resultType":"complete"`)
	}
	if raw, ok := m["_meta"]; ok {
		meta, err := cleanMeta(raw)
		if err != nil {
			return nil, err
		}
		if meta != nil {
			b.WriteString(`,"_meta":`)
			b.Write(meta)
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// appendItem writes the checked members of one content item.
func appendItem(b *bytes.Buffer, raw json.RawMessage, c Call) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return errors.New("not an object")
	}
	var typ string
	if err := json.Unmarshal(m["type"], &typ); err != nil || typ == "" {
		return errors.New(`"type" missing or not a string`)
	}
	switch typ {
	case "text":
		b.WriteString(`{"type":"text"`)
		return writeMembers(b, m, req("text"))
	case "image", "audio":
		if typ == "audio" && !c.hasVersion(VersionAudio) {
			return versionError(typ, VersionAudio, c)
		}
		fmt.Fprintf(b, `{"type":%q`, typ)
		return writeMembers(b, m, base64Req("data"), req("mimeType"))
	case "resource_link":
		if !c.hasVersion(VersionStructured) {
			return versionError(typ, VersionStructured, c)
		}
		b.WriteString(`{"type":"resource_link"`)
		return writeMembers(b, m, req("uri"), req("name"), opt("title"), opt("description"), opt("mimeType"))
	case "resource":
		var res map[string]json.RawMessage
		if err := json.Unmarshal(m["resource"], &res); err != nil || res == nil {
			return errors.New(`"resource" must be an object`)
		}
		_, hasText := res["text"]
		_, hasBlob := res["blob"]
		if hasText == hasBlob {
			return errors.New(`"resource" must have exactly one of "text" and "blob"`)
		}
		b.WriteString(`{"type":"resource","resource":{`)
		body := req("text")
		if hasBlob {
			body = base64Req("blob")
		}
		if err := writeFields(b, res, req("uri"), opt("mimeType"), body); err != nil {
			return fmt.Errorf("resource: %w", err)
		}
		b.WriteString("}}")
		return nil
	}
	return fmt.Errorf("unknown content type %q", truncate(typ, 40))
}

func versionError(typ, min string, c Call) error {
	return fmt.Errorf("content type %q needs protocol version %s or later; the session uses %s", typ, min, c.ProtocolVersion)
}

// member is a string member of a content item the host keeps.
type member struct {
	name     string
	required bool
	base64   bool
}

func req(name string) member       { return member{name: name, required: true} }
func opt(name string) member       { return member{name: name} }
func base64Req(name string) member { return member{name: name, required: true, base64: true} }

// writeMembers writes ms after an item's type and closes the item.
func writeMembers(b *bytes.Buffer, m map[string]json.RawMessage, ms ...member) error {
	for _, mem := range ms {
		if err := writeMember(b, m, mem, true); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// writeFields writes ms as the first members of an object (no leading
// comma before the first one written).
func writeFields(b *bytes.Buffer, m map[string]json.RawMessage, ms ...member) error {
	first := true
	for _, mem := range ms {
		n := b.Len()
		if err := writeMember(b, m, mem, !first); err != nil {
			return err
		}
		if b.Len() > n {
			first = false
		}
	}
	return nil
}

// writeMember writes "name":value when m has a string value for it.
// Optional members that are absent or not strings are left out.
func writeMember(b *bytes.Buffer, m map[string]json.RawMessage, mem member, comma bool) error {
	raw, ok := m[mem.name]
	var s string
	if !ok || json.Unmarshal(raw, &s) != nil || isNull(raw) {
		if mem.required {
			return fmt.Errorf("%q missing or not a string", mem.name)
		}
		return nil
	}
	if mem.base64 {
		if _, err := base64.StdEncoding.DecodeString(s); err != nil {
			return fmt.Errorf("%q is not base64", mem.name)
		}
	}
	if comma {
		b.WriteByte(',')
	}
	fmt.Fprintf(b, "%q:", mem.name)
	b.Write(compact(raw))
	return nil
}

// cleanMeta returns a result's _meta without the members MCP reserves
// (progressToken and keys whose prefix's second label is
// modelcontextprotocol or mcp); nil when none is left.
func cleanMeta(raw json.RawMessage) (json.RawMessage, error) {
	if !isObject(raw) {
		return nil, errors.New(`"_meta" must be an object`)
	}
	var keys []string
	m := map[string]json.RawMessage{}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if _, err := dec.Token(); err != nil {
		return nil, errors.New(`"_meta" must be an object`)
	}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, errors.New(`"_meta" must be an object`)
		}
		k, _ := tok.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, errors.New(`"_meta" must be an object`)
		}
		if reservedMetaKey(k) {
			continue
		}
		if _, dup := m[k]; !dup {
			keys = append(keys, k)
		}
		m[k] = v
	}
	if len(keys) == 0 {
		return nil, nil
	}
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		b.Write(kb)
		b.WriteByte(':')
		b.Write(compact(m[k]))
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// reservedMetaKey reports whether MCP reserves a _meta key: progressToken,
// or a prefix (before '/') whose second dot-separated label is
// modelcontextprotocol or mcp.
func reservedMetaKey(k string) bool {
	if k == "progressToken" {
		return true
	}
	prefix, _, ok := strings.Cut(k, "/")
	if !ok {
		return false
	}
	labels := strings.Split(prefix, ".")
	return len(labels) > 1 && (labels[1] == "modelcontextprotocol" || labels[1] == "mcp")
}

func isObject(raw json.RawMessage) bool {
	var m map[string]json.RawMessage
	return json.Unmarshal(raw, &m) == nil && m != nil
}

func isNull(raw json.RawMessage) bool {
	return string(bytes.TrimSpace(raw)) == "null"
}

// compact is raw without insignificant white space (raw is valid JSON).
func compact(raw json.RawMessage) []byte {
	var b bytes.Buffer
	if json.Compact(&b, raw) != nil {
		return raw
	}
	return b.Bytes()
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
