package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Helpers of this package's tests that read repository files. The tests
// that run the built binary live in internal/e2e, which has its own copy
// of docSection and codeBlocks (a test package cannot import another's;
// TestREADMEClientConfigs stays here, it checks the commands with this
// package's flag parser).

// repoRoot is the module root (two levels above this package).
func repoRoot(tb testing.TB) string {
	wd, err := os.Getwd()
	if err != nil {
		tb.Fatal(err)
	}
	return filepath.Dir(filepath.Dir(wd))
}

// docSection returns the text of the Markdown file doc (a path from the
// repository root, such as "docs/plugins.md") under heading (a whole line
// such as "## X") up to the next heading of the same or a higher level,
// outside code fences.
func docSection(t *testing.T, doc, heading string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(repoRoot(t), filepath.FromSlash(doc)))
	if err != nil {
		t.Fatal(err)
	}
	level := strings.IndexByte(heading, ' ')
	var out []string
	in, fence := false, false
	for line := range strings.SplitSeq(string(b), "\n") {
		if strings.HasPrefix(line, "```") {
			fence = !fence
		}
		if !fence && strings.HasPrefix(line, "#") {
			n := len(line) - len(strings.TrimLeft(line, "#"))
			if in && n <= level && strings.HasPrefix(line[n:], " ") {
				break
			}
			if line == heading {
				in = true
				continue
			}
		}
		if in {
			out = append(out, line)
		}
	}
	if !in {
		t.Fatalf("%s has no heading %q", doc, heading)
	}
	return strings.Join(out, "\n")
}

// codeBlocks returns the fenced code blocks of text with the given info
// string.
func codeBlocks(text, lang string) []string {
	re := regexp.MustCompile("(?ms)^```" + regexp.QuoteMeta(lang) + "\n(.*?)^```$")
	var out []string
	for _, m := range re.FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}
