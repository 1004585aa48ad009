package classify

import (
	"strings"
	"testing"
)

func TestGlobMatch(t *testing.T) {
	tests := []struct {
		name, pattern, input string
		want                 bool
	}{
		{"star matches everything", "*", "create_booking", true},
		{"star matches empty", "*", "", true},
		{"stars only match empty", "***", "", true},
		{"empty pattern matches only empty", "", "", true},
		{"empty pattern rejects non-empty", "", "a", false},
		{"literal matches itself", "create_booking", "create_booking", true},
		{"literal rejects longer", "create", "create_booking", false},
		{"literal rejects prefix", "create_booking", "create", false},
		{"case-sensitive", "Create_*", "create_booking", false},
		{"prefix glob", "create_*", "create_booking", true},
		{"prefix glob needs the underscore", "create_*", "createBooking", false},
		{"prefix glob matches the bare prefix", "create_*", "create_", true},
		{"suffix glob", "*_booking", "create_booking", true},
		{"suffix glob rejects", "*_booking", "create_bookings", false},
		{"infix glob", "*book*", "rebooking_now", true},
		{"infix glob rejects", "*book*", "reservation", false},
		{"prefix and suffix do not overlap", "ab*ba", "aba", false},
		{"prefix and suffix touch", "ab*ba", "abba", true},
		{"middle segments in order", "a*b*c", "a_b_c", true},
		{"middle segments out of order", "a*c*b", "a_b_c", false},
		{"middle segment must fit before suffix", "a*bc*c", "a_bc", false},
		{"middle segment reuse not allowed", "*ab*ab*", "xab", false},
		{"greedy leftmost is enough", "*a*ab", "aab", true},
		{"double star equals single", "a**b", "axyb", true},
		{"question mark is literal", "get?", "gets", false},
		{"question mark matches itself", "get?", "get?", true},
		{"brackets are literal", "[a]*", "[a]x", true},
		{"backslash is literal", `a\*`, `a\xyz`, true},
		{"utf-8 literal", "予約_*", "予約_作成", true},
		{"utf-8 star spans runes", "*作成", "予約_作成", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchGlob(tt.pattern, tt.input); got != tt.want {
				t.Errorf("MatchGlob(%q, %q) = %v, want %v", tt.pattern, tt.input, got, tt.want)
			}
			if got := refMatch(tt.pattern, tt.input); got != tt.want {
				t.Errorf("reference matcher disagrees with the table for (%q, %q)", tt.pattern, tt.input)
			}
		})
	}
}

// TestGlobManyStars runs the patterns that make backtracking matchers
// exponential (or, with 1,000 stars, effectively endless). A linear matcher
// finishes them at once; a regression would hang the test until go test's
// timeout rather than fail a timing threshold.
func TestGlobManyStars(t *testing.T) {
	long := strings.Repeat("a", 100_000)
	tests := []struct {
		name, pattern, input string
		want                 bool
	}{
		{"1000 stars of a against a long run of a, no b", strings.Repeat("a*", 1000) + "b", long, false},
		{"1000 stars of a against a long run of a ending in b", strings.Repeat("a*", 1000) + "b", long + "b", true},
		{"1000 bare stars", strings.Repeat("*", 1000), long, true},
		{"1000 stars between letters not present", strings.Repeat("*x", 1000) + "*", long, false},
		{"more segments than the name has room for", strings.Repeat("*a", 1001), strings.Repeat("a", 1000), false},
		{"exactly enough room", strings.Repeat("*a", 1000), strings.Repeat("a", 1000), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchGlob(tt.pattern, tt.input); got != tt.want {
				t.Errorf("got %v, want %v", got, tt.want)
			}
		})
	}
}

func TestCompileGlobString(t *testing.T) {
	if got := CompileGlob("a**b*").String(); got != "a**b*" {
		t.Errorf("String() = %q, want the pattern as written", got)
	}
}

// refMatch is an obviously correct O(n·m) dynamic-programming matcher used
// as the oracle: dp[j] reports whether pattern[:i] matches input[:j].
func refMatch(pattern, input string) bool {
	dp := make([]bool, len(input)+1)
	dp[0] = true
	for i := 0; i < len(pattern); i++ {
		next := make([]bool, len(input)+1)
		if pattern[i] == '*' {
			seen := false
			for j := 0; j <= len(input); j++ {
				seen = seen || dp[j]
				next[j] = seen
			}
		} else {
			for j := 1; j <= len(input); j++ {
				next[j] = dp[j-1] && input[j-1] == pattern[i]
			}
		}
		dp = next
	}
	return dp[len(input)]
}

func FuzzGlob(f *testing.F) {
	for _, s := range [][2]string{
		{"*", "anything"}, {"create_*", "create_booking"}, {"a*b*c", "abc"},
		{"*ab*ab*", "xab"}, {"", ""}, {"**", "x"}, {"a*a*a*a*b", "aaaaaaaa"},
		{"予約*", "予約_作成"}, {"\xff*", "\xff\xfe"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, input string) {
		got := MatchGlob(pattern, input)
		if !MatchGlob("*", input) {
			t.Fatalf("* does not match %q", input)
		}
		if !strings.Contains(pattern, "*") && got != (pattern == input) {
			t.Fatalf("star-free pattern %q vs %q: got %v", pattern, input, got)
		}
		if !strings.Contains(pattern, "*") && !MatchGlob(pattern, pattern) {
			t.Fatalf("star-free pattern %q does not match itself", pattern)
		}
		if len(pattern)*len(input) <= 1<<16 {
			if want := refMatch(pattern, input); got != want {
				t.Fatalf("MatchGlob(%q, %q) = %v, reference says %v", pattern, input, got, want)
			}
		}
	})
}

func BenchmarkGlobThousandStars(b *testing.B) {
	as := strings.Repeat("a", 10_000)
	benches := []struct{ name, pattern, input string }{
		// The suffix b is there, so all 1,000 middle segments are searched.
		{"a-star x1000 vs 10k a then b", strings.Repeat("a*", 1000) + "b", as + "b"},
		// Every middle segment ab is searched across the whole run of a.
		{"star-ab x1000 vs 10k a then b", strings.Repeat("*ab", 1000) + "*", as + "b"},
		{"bare star x1000 vs 10k a", strings.Repeat("*", 1000), as},
		{"create_* vs create_booking", "create_*", "create_booking"},
	}
	for _, bb := range benches {
		g := CompileGlob(bb.pattern)
		b.Run(bb.name, func(b *testing.B) {
			for b.Loop() {
				g.Match(bb.input)
			}
		})
	}
}
