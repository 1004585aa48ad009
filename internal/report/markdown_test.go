package report

import "testing"

// TestMarkdownCodeSpan: a value with backticks becomes a code span with a
// longer fence (moved from judge's TestMarkdownViolationDetail).
func TestMarkdownCodeSpan(t *testing.T) {
	if got := mdCode("a`b``c"); got != "``` a`b``c ```" {
		t.Errorf("mdCode = %q", got)
	}
}
