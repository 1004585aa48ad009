package judge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/escape"
	"github.com/cuonztech/agent-harness/internal/report"
)

// MaxArgumentsBytes bounds operations[].arguments (behaviour §5.4): a JSON
// text longer than this is shown as a string of its first
// MaxArgumentsBytes bytes, cut before a UTF-8 sequence that would not fit
// whole, with argumentsTruncated: true.
const MaxArgumentsBytes = 4096

// maxAttemptLog bounds operations[].attemptLog: the first maxAttemptLog
// attempts are listed, attemptLogOmitted counts the others. It keeps the
// re-encoding of an operation that changes bounded however often the
// agent repeats it.
const maxAttemptLog = 100

// redactedPrefix starts every redacted leaf value.
const redactedPrefix = "sha256:"

// shownArgs is what operations[].arguments shows of an operation's first
// attempt, computed once when the operation is created.
type shownArgs struct {
	// value is the JSON value written as arguments.
	value json.RawMessage
	// truncated: value is a string of the first MaxArgumentsBytes of the
	// JSON text.
	truncated bool
	// invalid: the arguments were not valid JSON; value is a string of
	// their text (or of its hash when redacting).
	invalid bool
}

var jsonNull = json.RawMessage("null")

// showArguments returns the arguments as the report shows them: the JSON
// value as sent (whitespace outside strings removed; numbers digit for
// digit), or with redact every leaf replaced by "sha256:<hex>". Arguments
// with invalid UTF-8 in strings are re-written with U+FFFD for each
// invalid byte or lone surrogate, so the file stays valid UTF-8; absent
// arguments are null.
func showArguments(raw []byte, redact bool) shownArgs {
	if len(bytes.TrimSpace(raw)) == 0 {
		return shownArgs{value: jsonNull}
	}
	if !redact && utf8.Valid(raw) && json.Valid(raw) {
		// The usual case, without building a tree: a 100 MB argument must
		// not cost another 100 MB twice over to show its first 4 KiB.
		text, more := compactPrefix(raw, MaxArgumentsBytes)
		if more {
			return shownArgs{value: report.AppendJSON(nil, string(text[:escape.Cut(text, MaxArgumentsBytes)])), truncated: true}
		}
		return shownArgs{value: text}
	}
	d, err := canon.Parse(raw)
	if err != nil {
		s := shownArgs{invalid: true}
		if redact {
			s.value = report.AppendJSON(nil, hashText(raw))
			return s
		}
		text := raw
		if len(text) > MaxArgumentsBytes {
			text, s.truncated = text[:escape.Cut(text, MaxArgumentsBytes)], true
		}
		s.value = report.AppendJSON(nil, string(text)) // invalid UTF-8 becomes U+FFFD
		return s
	}
	var text []byte
	switch {
	case redact:
		text = writeDoc(nil, d, redactLeaf)
	case utf8.Valid(raw):
		var b bytes.Buffer
		if json.Compact(&b, raw) == nil {
			text = b.Bytes()
		} else {
			// encoding/json refuses what canon accepts only beyond its
			// nesting limit.
			text = writeDoc(nil, d, validLeaf)
		}
	default:
		text = writeDoc(nil, d, validLeaf)
	}
	if len(text) > MaxArgumentsBytes {
		return shownArgs{value: report.AppendJSON(nil, string(text[:escape.Cut(text, MaxArgumentsBytes)])), truncated: true}
	}
	return shownArgs{value: text}
}

// RedactArguments returns raw with every leaf value (string, number,
// boolean; null stays null) replaced by "sha256:<hex>" of the leaf's
// canonical JSON text, member names and structure kept; arguments that
// are not valid JSON become one such string of their bytes. It is what
// --redact-arguments shows wherever arguments would be shown (report file,
// audit tools, stderr).
func RedactArguments(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return jsonNull
	}
	d, err := canon.Parse(raw)
	if err != nil {
		return report.AppendJSON(nil, hashText(raw))
	}
	return writeDoc(nil, d, redactLeaf)
}

// hashText is the redacted form of a value whose JSON text is text.
func hashText(text []byte) string {
	sum := sha256.Sum256(text)
	return redactedPrefix + hex.EncodeToString(sum[:])
}

// redactLeaf writes the redacted form of leaf n: null stays null; other
// values become the hash of their canonical JSON text (canon), so equal
// values (12 and 12.0, "A" and "\u0041") hash equal and different values
// (12 and "12") differ.
func redactLeaf(dst []byte, d *canon.Doc, n int) []byte {
	if d.Kind(n) == canon.Null {
		return append(dst, "null"...)
	}
	var text []byte
	if d.Kind(n) == canon.String {
		text = canon.AppendString(nil, d.Str(n))
	} else {
		text = d.AppendCanonical(nil, n)
	}
	dst = append(dst, '"')
	dst = append(dst, hashText(text)...)
	return append(dst, '"')
}

// validLeaf writes leaf n as sent, with strings made valid UTF-8.
func validLeaf(dst []byte, d *canon.Doc, n int) []byte {
	switch d.Kind(n) {
	case canon.Null:
		return append(dst, "null"...)
	case canon.False:
		return append(dst, "false"...)
	case canon.True:
		return append(dst, "true"...)
	case canon.Number:
		return append(dst, d.NumberText(n)...)
	}
	return canon.AppendString(dst, canon.AppendValid(nil, d.Str(n)))
}

// walkFrame is one open container of writeDoc.
type walkFrame struct {
	end     int  // first node after the container
	obj     bool // object: children alternate member name, value
	wantKey bool // object: the next child is a member name
	n       int  // children written (members for objects)
}

// writeDoc writes the document in its own member order (duplicate names
// kept), leaves through leaf and member names as valid UTF-8. It walks the
// nodes in order with an explicit stack, so deep nesting costs no
// goroutine stack.
func writeDoc(dst []byte, d *canon.Doc, leaf func([]byte, *canon.Doc, int) []byte) []byte {
	var stack []walkFrame
	closeTo := func(i int) {
		for len(stack) > 0 && i >= stack[len(stack)-1].end {
			if stack[len(stack)-1].obj {
				dst = append(dst, '}')
			} else {
				dst = append(dst, ']')
			}
			stack = stack[:len(stack)-1]
		}
	}
	for i := 0; i < d.Len(); i++ {
		closeTo(i)
		if len(stack) > 0 {
			f := &stack[len(stack)-1]
			switch {
			case f.obj && f.wantKey:
				if f.n > 0 {
					dst = append(dst, ',')
				}
				f.n++
				f.wantKey = false
				dst = canon.AppendString(dst, canon.AppendValid(nil, d.Str(i)))
				dst = append(dst, ':')
				continue
			case f.obj:
				f.wantKey = true
			default:
				if f.n > 0 {
					dst = append(dst, ',')
				}
				f.n++
			}
		}
		switch d.Kind(i) {
		case canon.Array:
			dst = append(dst, '[')
			stack = append(stack, walkFrame{end: d.End(i)})
		case canon.Object:
			dst = append(dst, '{')
			stack = append(stack, walkFrame{end: d.End(i), obj: true, wantKey: true})
		default:
			dst = leaf(dst, d, i)
		}
	}
	closeTo(d.Len())
	return dst
}

// redactedKeys maps each key field value of raw (as canon.Op.Keys writes
// it: strings unquoted, other values as canonical JSON) to its redacted
// form, the hash of the value's canonical JSON text, as in the redacted
// arguments.
func redactedKeys(raw []byte, kf canon.KeyFields) map[string]string {
	d, err := canon.Parse(raw)
	if err != nil || d.Kind(0) != canon.Object {
		return nil
	}
	m := map[string]string{}
	for _, k := range d.Members(0, nil) {
		if !kf.Match(string(d.Str(int(k)))) {
			continue
		}
		v := int(k) + 1
		var repr string
		var text []byte
		if d.Kind(v) == canon.String {
			repr, text = string(d.Str(v)), canon.AppendString(nil, d.Str(v))
		} else {
			text = d.AppendCanonical(nil, v)
			repr = string(text)
		}
		if _, seen := m[repr]; !seen {
			m[repr] = hashText(text)
		}
	}
	return m
}

// redactKey is the redacted form of key value k (canon.Op.Keys form)
// from m, or, should m not have it, the hash of k as a JSON string.
func redactKey(m map[string]string, k string) string {
	if h, ok := m[k]; ok {
		return h
	}
	return hashText(canon.AppendString(nil, []byte(k)))
}

// compactPrefix returns the start of the compact form of the valid JSON
// text raw (json.Compact's output: whitespace outside strings removed),
// up to limit bytes and a few more; more is true when the compact form is
// longer than limit. It reads raw once and allocates only what it returns.
func compactPrefix(raw []byte, limit int) (text []byte, more bool) {
	out := make([]byte, 0, min(len(raw), limit+4))
	inString, escaped := false, false
	for _, c := range raw {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			continue
		case c == '"':
			inString = true
		}
		if len(out) == limit+4 {
			return out, true
		}
		out = append(out, c)
	}
	return out, len(out) > limit
}
