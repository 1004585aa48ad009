package canon

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// invalidMark precedes an invalid UTF-8 input byte in a decoded string
// (Doc.Str). 0xFF never occurs in UTF-8, not even in generalised UTF-8.
const invalidMark = 0xFF

// attention marks the bytes of a decoded string AppendString must look at:
// '"', '\', control characters, and the first bytes of a lone surrogate
// (0xED) or of a marked invalid byte (0xFF).
var attention = func() (t [256]bool) {
	for c := range 0x20 {
		t[c] = true
	}
	t['"'], t['\\'], t[0xED], t[invalidMark] = true, true, true, true
	return t
}()

// AppendString appends s, the decoded bytes of a string (Doc.Str; any valid
// UTF-8 is one), as a canonical JSON string: only '"', '\' and control
// characters below U+0020 are escaped; a lone surrogate is written as its
// \udxxx escape in lower-case hex, and an invalid UTF-8 byte is written
// verbatim (see the package documentation).
func AppendString(dst, s []byte) []byte {
	dst = append(dst, '"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !attention[c] {
			continue
		}
		switch c {
		case 0xED:
			if i+2 >= len(s) || s[i+1] < 0xA0 {
				continue // U+D000–U+D7FF, valid UTF-8
			}
			dst = append(dst, s[last:i]...)
			dst = append(dst, '\\', 'u', 'd', hexDigits[s[i+1]>>2&0xF], hexDigits[(s[i+1]&3)<<2|s[i+2]>>4&3], hexDigits[s[i+2]&0xF])
			i += 2
			last = i + 1
			continue
		case invalidMark:
			if i+1 >= len(s) {
				continue
			}
			dst = append(dst, s[last:i]...)
			i++
			last = i // the byte itself is copied with the next run
			continue
		}
		dst = append(dst, s[last:i]...)
		last = i + 1
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\b':
			dst = append(dst, '\\', 'b')
		case '\f':
			dst = append(dst, '\\', 'f')
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xF])
		}
	}
	dst = append(dst, s[last:]...)
	return append(dst, '"')
}

// AppendValid appends s, the decoded bytes of a string (Doc.Str), as valid
// UTF-8: each lone surrogate and each invalid input byte becomes U+FFFD,
// as Go's encoding/json decodes them. Valid UTF-8 is appended unchanged.
func AppendValid(dst, s []byte) []byte {
	if utf8.Valid(s) {
		return append(dst, s...)
	}
	for i := 0; i < len(s); {
		switch {
		case s[i] == invalidMark && i+1 < len(s):
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i += 2
			continue
		case s[i] == 0xED && i+2 < len(s) && s[i+1] >= 0xA0:
			dst = utf8.AppendRune(dst, utf8.RuneError)
			i += 3
			continue
		}
		r, size := utf8.DecodeRune(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return dst
}
