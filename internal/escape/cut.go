package escape

import (
	"strconv"
	"unicode"
	"unicode/utf8"
)

// Cut returns the largest n' <= n at which s can be cut without splitting
// a UTF-8 sequence (len(s) when n >= len(s)).
func Cut[T ~string | ~[]byte](s T, n int) int {
	if n >= len(s) {
		return len(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}

// Shorten returns s cut to at most n bytes at a UTF-8 boundary, ending
// with "…" when it was cut.
func Shorten(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:Cut(s, n)] + "…"
}

// MaxName bounds a tool name shown by Name, in bytes.
const MaxName = 200

// Name returns a tool name for a line: as is when it is plain (graphic,
// no spaces, valid UTF-8), Go-quoted when it has spaces, control or
// invisible characters or invalid UTF-8, so an odd name can neither break
// the line nor look like another; a name longer than MaxName is
// shortened first.
func Name(s string) string {
	s = Shorten(s, MaxName)
	if s == "" || !utf8.ValidString(s) {
		return strconv.Quote(s)
	}
	for _, r := range s {
		if !unicode.IsGraphic(r) || unicode.IsSpace(r) {
			return strconv.Quote(s)
		}
	}
	return s
}
