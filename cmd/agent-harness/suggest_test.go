package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0},
		{"", "abc", 3},
		{"abc", "", 3},
		{"scenario", "scenario", 0},
		{"senario", "scenario", 1},   // deletion
		{"scenarioo", "scenario", 1}, // insertion
		{"scenaria", "scenario", 1},  // substitution
		{"scenraio", "scenario", 1},  // neighbours swapped
		{"reprot-file", "report-file", 1},
		{"ca", "abc", 3}, // optimal string alignment: no edit of a swapped pair
		{"kitten", "sitting", 3},
		{"héllo", "hello", 1}, // runes, not bytes
		{"mode", "seed", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestDidYouMean(t *testing.T) {
	known := []string{"scenario", "seed", "mode", "report-file", "audit-tools", "upstream-arg", "upstream-args", "upstream-cwd", "quiet", "help", "version"}
	tests := []struct{ name, want string }{
		{"senario", " (did you mean --scenario?)"},
		{"--senario", " (did you mean --scenario?)"},
		{"Scenario", " (did you mean --scenario?)"},
		{"REPORT_FILE", " (did you mean --report-file?)"},
		{"reportfile", " (did you mean --report-file?)"},
		{"report", " (did you mean --report-file?)"},
		{"upstream", ""}, // starts three flags: ambiguous
		{"upstream-ar", " (did you mean --upstream-arg?)"}, // the closer one
		{"sed", " (did you mean --seed?)"},
		{"x", ""},
		{"re", ""}, // too short to be a prefix hint
		{"bogus", ""},
		{"quite", " (did you mean --quiet?)"},
		{"verison", " (did you mean --version?)"},
		{"", ""},
		{strings.Repeat("a", 1000), ""},
	}
	for _, tt := range tests {
		if got := didYouMean(tt.name, known); got != tt.want {
			t.Errorf("didYouMean(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

// FuzzEditDistance checks the distance's laws on any input: zero exactly
// for equal strings, symmetric, at most the longer length and at least the
// length difference; and that a suggestion is always a known name.
func FuzzEditDistance(f *testing.F) {
	for _, s := range [][2]string{{"senario", "scenario"}, {"", "x"}, {"ab", "ba"}, {"héllo", "hello"}, {"\xff", "a"}} {
		f.Add(s[0], s[1])
	}
	known := []string{"scenario", "seed", "report-file", "quiet"}
	f.Fuzz(func(t *testing.T, a, b string) {
		if len(a) > 200 || len(b) > 200 {
			return
		}
		d := editDistance(a, b)
		ra, rb := []rune(a), []rune(b)
		if (d == 0) != (string(ra) == string(rb)) {
			t.Fatalf("editDistance(%q, %q) = %d", a, b, d)
		}
		if d != editDistance(b, a) {
			t.Fatalf("not symmetric for %q, %q", a, b)
		}
		la, lb := utf8.RuneCountInString(a), utf8.RuneCountInString(b)
		if d > max(la, lb) || d < max(la-lb, lb-la) {
			t.Fatalf("editDistance(%q, %q) = %d out of bounds", a, b, d)
		}
		if s := closestName(a, known); s != "" && !strings.Contains(strings.Join(known, " "), s) {
			t.Fatalf("closestName(%q) = %q, not a known name", a, s)
		}
	})
}
