package neardup

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/wire"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// stage flags for normalise: each removes one transformation kind.
const (
	stInvisible = 1 << iota
	stNFKC
	stFold
	stSpace
	stAll = stInvisible | stNFKC | stFold | stSpace
)

// normStr locates a string value's normalisation in its side's arena.
type normStr struct {
	sOff, sEnd int32 // normalised text
	nOff, nEnd int32 // canonical number when the text is a JSON number
	isNum      bool
	plain      bool  // the text is a plain decimal (a JSON number without exponent)
	date       int32 // 1 + index of the text's date readings in the side's dates, 0 = not a date
}

// normView is a normStr resolved against the arena; valid until the arena
// grows.
type normView struct {
	s     []byte
	num   []byte // nil when not a JSON number
	plain bool
	dates *dateReadings // nil when the text is not a date
}

// appendNormStr normalises b into arena and describes the result; a text
// that reads as a date has its readings appended to dates.
func appendNormStr(arena, b []byte, dates *[]dateReadings) ([]byte, normStr) {
	var n normStr
	n.sOff = int32(len(arena))
	arena = appendNormalised(arena, b, stAll)
	n.sEnd = int32(len(arena))
	if s := arena[n.sOff:n.sEnd]; wire.IsNumber(s) {
		n.isNum = true
		n.plain = !bytes.ContainsAny(s, "eE")
		n.nOff = int32(len(arena))
		arena = wire.AppendNumber(arena, arena[n.sOff:n.sEnd])
		n.nEnd = int32(len(arena))
	} else if d := parseDate(arena[n.sOff:n.sEnd]); d.n > 0 {
		*dates = append(*dates, d)
		n.date = int32(len(*dates))
	}
	return arena, n
}

func (n *normStr) view(arena []byte, dates []dateReadings) normView {
	v := normView{s: arena[n.sOff:n.sEnd], plain: n.plain}
	if n.date != 0 {
		v.dates = &dates[n.date-1]
	}
	if n.isNum {
		v.num = arena[n.nOff:n.nEnd]
	}
	return v
}

func isASCII(b []byte) bool {
	for _, c := range b {
		if c >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isInvisible(r rune) bool {
	switch {
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF,
		r >= 0x180B && r <= 0x180D, r == 0x180F:
		return true
	}
	return unicode.Is(unicode.Cf, r)
}

func isSpace(r rune) bool { return unicode.IsSpace(r) || unicode.Is(unicode.Zs, r) }

// normalise applies the selected stages to b, in the order invisible
// characters, NFKC, case folding (then NFKC again), white space.
func normalise(b []byte, stages int) string { return string(appendNormalised(nil, b, stages)) }

// appendNormalised appends normalise(b, stages) to dst.
func appendNormalised(dst, b []byte, stages int) []byte {
	if isASCII(b) {
		// ASCII has no invisible (Cf) characters and is NFKC already.
		for _, c := range b {
			switch {
			case stages&stSpace != 0 && (c == ' ' || (c >= '\t' && c <= '\r')):
				continue
			case stages&stFold != 0 && c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		return dst
	}
	s := b
	if !utf8.Valid(s) {
		// Lone surrogates and invalid bytes (kept distinct by canon)
		// each compare as U+FFFD, as Go's encoding/json decodes them:
		// "\ud800" ≈ "\ud801" ≈ "\ufffd" is a possible duplicate.
		s = canon.AppendValid(nil, s)
	}
	if stages&stInvisible != 0 {
		s = filterRunes(s, isInvisible)
	}
	if stages&stNFKC != 0 {
		s = norm.NFKC.Bytes(s)
	}
	if stages&stFold != 0 {
		s = cases.Fold().Bytes(s)
		if stages&stNFKC != 0 {
			s = norm.NFKC.Bytes(s)
		}
	}
	if stages&stSpace != 0 {
		s = filterRunes(s, isSpace)
	}
	return append(dst, s...)
}

// filterRunes returns b without the runes drop reports true for (b itself
// when there are none).
func filterRunes(b []byte, drop func(rune) bool) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if drop(r) {
			if out == nil {
				out = append(make([]byte, 0, len(b)), b[:i]...)
			}
		} else if out != nil {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	if out == nil {
		return b
	}
	return out
}

// stringKinds names the stages needed to make x and y equal: a stage is
// needed when skipping it (and applying the others) leaves them different.
func stringKinds(x, y []byte) kind {
	var k kind
	for _, st := range [...]struct {
		stage int
		k     kind
	}{{stInvisible, kindInvisible}, {stNFKC, kindUnicode}, {stFold, kindCase}, {stSpace, kindSpace}} {
		if normalise(x, stAll&^st.stage) != normalise(y, stAll&^st.stage) {
			k |= st.k
		}
	}
	return k
}
