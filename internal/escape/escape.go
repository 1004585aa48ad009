// Package escape makes text that comes from peers — tool names, arguments,
// upstream results, plugin details, agent output — safe where the harness
// renders it (behaviour §7.5): on a terminal (stderr lines, Markdown on
// stdout), in Markdown and in JUnit XML. A peer must not be able to start
// a line, a heading or an HTML element of its own, nor send escape
// sequences to the reader's terminal.
package escape

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Line returns s with every character that could break a line or act on a
// terminal shown as a Go-style escape: C0 controls but the tab (line breaks
// and ESC included) as \n, \r, \x1b…, DEL and C1 controls as \x7f, \u009b…,
// the Unicode line and paragraph separators and the bidirectional controls
// (which reorder what a reader sees) as \u2028…, and bytes that are not
// UTF-8 as \xff…. Everything else, backslashes included, is kept.
func Line(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c >= 0x20 && c < 0x7f {
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unsafe(r, n) {
			i += n
			continue
		}
		break
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for i < len(s) {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unsafe(r, n) {
			writeEscape(&b, s[i], r, n)
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// LineBreaks returns s with its carriage returns and line feeds shown as
// \r and \n and nothing else changed: an error text kept on one line where
// the reader (a campaign record, the reference agent's transcript) shows
// other characters as they are. Line is the stricter form for a terminal.
func LineBreaks(s string) string { return lineBreaks.Replace(s) }

var lineBreaks = strings.NewReplacer("\r", `\r`, "\n", `\n`)

// unsafe reports whether the rune r (n bytes; RuneError of 1 byte for a
// byte that is not UTF-8) must be escaped.
func unsafe(r rune, n int) bool {
	switch {
	case r == utf8.RuneError && n == 1:
		return true
	case r == '\t':
		return false // harmless within a line, and common in upstream logs
	case r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f):
		return true
	case r == 0x2028 || r == 0x2029:
		return true
	case r == 0x200e || r == 0x200f || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) || r == 0x061c:
		return true // bidirectional marks, embeddings, overrides and isolates
	}
	return false
}

func writeEscape(b *strings.Builder, first byte, r rune, n int) {
	switch {
	case r == utf8.RuneError && n == 1:
		b.WriteString(`\x`)
		b.WriteString(hex2(first))
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r < 0x80:
		b.WriteString(`\x`)
		b.WriteString(hex2(byte(r)))
	default:
		q := strconv.FormatInt(int64(r), 16)
		b.WriteString(`\u` + strings.Repeat("0", 4-len(q)) + q)
	}
}

func hex2(c byte) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4], digits[c&15]})
}

// markdownSpecial are the characters Markdown text escapes with a
// backslash: the backslash itself, code spans, emphasis, links and images,
// raw HTML and entities, table cells and strikethrough.
const markdownSpecial = "\\`*[]<>&|~"

// lineStart are the characters that make a block (heading, quote, list,
// setext underline, table, fence) when they start a line.
const lineStart = "#>-+=_0123456789"

// Markdown returns s as Markdown inline text that renders as s: what Line
// escapes, and a backslash before each Markdown character that could start
// code, emphasis, a link, an image, HTML, an entity or a table cell, and
// before a first character that could start a block. The result never
// contains a line break, so it cannot start a heading of its own.
func Markdown(s string) string {
	if !strings.ContainsAny(s, markdownSpecial) && (s == "" || !strings.ContainsRune(lineStart, rune(s[0]))) {
		return Line(s)
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if strings.IndexByte(markdownSpecial, c) >= 0 || (i == 0 && strings.IndexByte(lineStart, c) >= 0 && !isDigit(c)) {
			b.WriteByte('\\')
		}
		b.WriteByte(c)
	}
	out := b.String()
	if isDigit(out[0]) {
		// "1. " or "1) " would start an ordered list: escape what follows
		// the digits.
		j := 0
		for j < len(out) && isDigit(out[j]) {
			j++
		}
		if j < len(out) && (out[j] == '.' || out[j] == ')') {
			out = out[:j] + `\` + out[j:]
		}
	}
	// Last, so that the escapes it writes are not escaped again.
	return Line(out)
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// Code returns s as a Markdown code span: what Line escapes, fenced by
// more backticks than any run of them in s (a code span shows its content
// as is: no other escaping is needed or possible).
func Code(s string) string {
	s = Line(s)
	run, longest := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 || strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ") {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
