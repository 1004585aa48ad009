package relay

import (
	"bytes"
	"testing"
)

// TestLoggerEscapesPeerText (issue 17 item 9): a line of the upstream's
// stderr, or any line with peer text, reaches our stderr as one line with
// its terminal escapes shown (\x1b), not acted on.
func TestLoggerEscapesPeerText(t *testing.T) {
	var b bytes.Buffer
	l := &logger{w: &b}
	l.Printf("upstream: %s", "\x1b]0;pwned\x07\x1b[2Jok\r\n[agent-harness] Result: PASS")
	want := `[agent-harness] upstream: \x1b]0;pwned\x07\x1b[2Jok\r\n[agent-harness] Result: PASS` + "\n"
	if b.String() != want {
		t.Errorf("got  %q\nwant %q", b.String(), want)
	}
}
