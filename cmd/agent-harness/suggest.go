package main

import "strings"

// maxSuggestLen bounds the names didYouMean compares (in runes): a longer
// word is no mistyped flag, and the distance's cost stays small.
const maxSuggestLen = 64

// didYouMean returns " (did you mean --X?)" for the known flag name closest
// to the unknown name, or "" when none is close. Close is: the same name in
// another letter case or with _ for -, or an edit distance (insertions,
// deletions, substitutions, swaps of neighbours) of at most 1 for names up
// to 4 letters, 2 up to 8, 3 beyond, or the only known name that starts
// with name (3 letters at least). Ties go to the earlier name in known.
func didYouMean(name string, known []string) string {
	if best := closestName(name, known); best != "" {
		return " (did you mean --" + best + "?)"
	}
	return ""
}

// closestName is didYouMean's choice, "" when none is close.
func closestName(name string, known []string) string {
	name = strings.TrimLeft(name, "-")
	if name == "" || len(name) > 4*maxSuggestLen {
		return ""
	}
	norm := strings.ReplaceAll(strings.ToLower(name), "_", "-")
	for _, k := range known {
		if norm == k {
			return k
		}
	}
	limit := 3
	switch n := len([]rune(name)); {
	case n > maxSuggestLen:
		return ""
	case n <= 4:
		limit = 1
	case n <= 8:
		limit = 2
	}
	best, bestD := "", limit+1
	for _, k := range known {
		if d := editDistance(norm, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return best
	}
	if len(norm) < 3 {
		return ""
	}
	prefixed := ""
	for _, k := range known {
		if strings.HasPrefix(k, norm) {
			if prefixed != "" {
				return "" // ambiguous
			}
			prefixed = k
		}
	}
	return prefixed
}

// editDistance is the optimal string alignment distance between a and b,
// in runes: the fewest insertions, deletions, substitutions and swaps of
// two neighbouring runes that turn a into b (no substring edited twice).
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rows: two back (for swaps), previous, current.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
