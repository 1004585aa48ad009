package classify

import "strings"

// Glob is a compiled tool-name pattern in which `*` matches any run of bytes
// (also none) and every other byte matches itself, case-sensitively. There is
// no escape and no other metacharacter (behaviour §2.2).
//
// Matching never uses regular expressions and never backtracks: the pattern is
// split on `*` into literal segments; the first must be a prefix of the name,
// the last a suffix, and the ones between are found left to right, each at its
// leftmost position after the previous one. Taking the leftmost position is
// always safe for `*`-only patterns (an earlier match leaves more room for the
// rest), so one pass suffices. Each search starts where the previous match
// ended, so the work is linear in len(name)+len(pattern) up to the cost of
// strings.Index; a pattern with thousands of stars costs no more than one
// with a single star.
type Glob struct {
	pattern string
	// segs are the literal pieces between stars; nil when the pattern has
	// no star. Empty pieces (from `**`) are dropped except the first and
	// last, which anchor the ends.
	segs []string
}

// CompileGlob compiles pattern. Every string is a valid pattern.
func CompileGlob(pattern string) Glob {
	if !strings.Contains(pattern, "*") {
		return Glob{pattern: pattern}
	}
	parts := strings.Split(pattern, "*")
	segs := make([]string, 0, len(parts))
	segs = append(segs, parts[0])
	for _, p := range parts[1 : len(parts)-1] {
		if p != "" {
			segs = append(segs, p)
		}
	}
	segs = append(segs, parts[len(parts)-1])
	return Glob{pattern: pattern, segs: segs}
}

// String returns the pattern as written.
func (g Glob) String() string { return g.pattern }

// Match reports whether name matches the whole pattern.
func (g Glob) Match(name string) bool {
	if g.segs == nil {
		return name == g.pattern
	}
	first, last := g.segs[0], g.segs[len(g.segs)-1]
	if len(name) < len(first)+len(last) ||
		!strings.HasPrefix(name, first) || !strings.HasSuffix(name, last) {
		return false
	}
	// The middle segments must fit, in order and without overlapping,
	// between the prefix and the suffix.
	rest := name[len(first) : len(name)-len(last)]
	for _, seg := range g.segs[1 : len(g.segs)-1] {
		i := strings.Index(rest, seg)
		if i < 0 {
			return false
		}
		rest = rest[i+len(seg):]
	}
	return true
}

// MatchGlob reports whether name matches pattern; see Glob.
func MatchGlob(pattern, name string) bool {
	return CompileGlob(pattern).Match(name)
}
