package canon

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// DefaultKeyField is the key field used when none are configured.
const DefaultKeyField = "idempotency_key"

// KeyFields is the set of top-level argument names that carry an idempotency
// key (--key-fields). A name matches when it equals a listed name
// case-insensitively, with '-' and '_' treated alike. The zero value behaves
// like ParseKeyFields(nil).
type KeyFields struct {
	names []string // as given, trimmed
	norm  []string // '-' replaced by '_'
}

// ParseKeyFields builds a KeyFields from names; blank names are ignored. When
// no name remains, the default idempotency_key is used.
func ParseKeyFields(names []string) KeyFields {
	var k KeyFields
	for _, n := range names {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		k.names = append(k.names, n)
		k.norm = append(k.norm, strings.ReplaceAll(n, "-", "_"))
	}
	return k
}

var defaultNorm = []string{DefaultKeyField}

func (k KeyFields) normNames() []string {
	if len(k.norm) == 0 {
		return defaultNorm
	}
	return k.norm
}

// Match reports whether name is a key field.
func (k KeyFields) Match(name string) bool {
	if strings.IndexByte(name, '-') >= 0 {
		name = strings.ReplaceAll(name, "-", "_")
	}
	for _, n := range k.normNames() {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// matchBytes is Match without converting name to a string first.
func (k KeyFields) matchBytes(name []byte) bool {
	for _, n := range k.normNames() {
		if equalFoldDash(n, name) {
			return true
		}
	}
	return false
}

// equalFoldDash reports whether name equals norm (which has '_' for '-')
// under simple Unicode case folding with '-' read as '_'.
func equalFoldDash(norm string, name []byte) bool {
	for len(norm) > 0 && len(name) > 0 {
		r, size := utf8.DecodeRune(name)
		name = name[size:]
		if r == '-' {
			r = '_'
		}
		q, qs := utf8.DecodeRuneInString(norm)
		norm = norm[qs:]
		if r == q {
			continue
		}
		// Walk q's fold orbit (as strings.EqualFold does).
		f := unicode.SimpleFold(q)
		for f != q && f != r {
			f = unicode.SimpleFold(f)
		}
		if f != r {
			return false
		}
	}
	return len(norm) == 0 && len(name) == 0
}

// Names returns the configured names as given (the default when none were).
func (k KeyFields) Names() []string {
	if len(k.names) == 0 {
		return []string{DefaultKeyField}
	}
	return append([]string(nil), k.names...)
}
