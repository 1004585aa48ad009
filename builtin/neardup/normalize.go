package neardup

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/builtin/canon"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// normStr is a string value after normalisation.
type normStr struct {
	s     string // normalised text
	num   []byte // canonical number when s is a JSON number, else nil
	plain bool   // s is a plain decimal (a JSON number without exponent)
}

// stage flags for normaliseStages: each removes one transformation kind.
const (
	stInvisible = 1 << iota
	stNFKC
	stFold
	stSpace
	stAll = stInvisible | stNFKC | stFold | stSpace
)

func newNormStr(b []byte) normStr {
	s := normaliseBytes(b, stAll)
	n := normStr{s: string(s)}
	if canon.IsNumber(s) {
		n.num = canon.AppendNumber(nil, s)
		n.plain = bytes.IndexAny(s, "eE") < 0
	}
	return n
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
func normalise(b []byte, stages int) string { return string(normaliseBytes(b, stages)) }

// normaliseBytes is normalise; the result may alias b.
func normaliseBytes(b []byte, stages int) []byte {
	if isASCII(b) {
		// ASCII has no invisible (Cf) characters and is NFKC already.
		if !needsASCIIWork(b, stages) {
			return b
		}
		out := make([]byte, 0, len(b))
		for _, c := range b {
			switch {
			case stages&stSpace != 0 && (c == ' ' || (c >= '\t' && c <= '\r')):
				continue
			case stages&stFold != 0 && c >= 'A' && c <= 'Z':
				c += 'a' - 'A'
			}
			out = append(out, c)
		}
		return out
	}
	s := b
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
	return s
}

func needsASCIIWork(b []byte, stages int) bool {
	for _, c := range b {
		if (stages&stSpace != 0 && (c == ' ' || (c >= '\t' && c <= '\r'))) || (stages&stFold != 0 && c >= 'A' && c <= 'Z') {
			return true
		}
	}
	return false
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
