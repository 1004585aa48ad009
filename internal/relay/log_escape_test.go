package relay

import (
	"bytes"
	"encoding/json"
	"strings"
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

// TestIdlessErrorCutAtCharacter: the message of an error the upstream sent
// without a request id is cut to 500 bytes where a character starts (a
// character on the cut is left out whole) and marked "…"; a message that
// fits is kept as it came.
func TestIdlessErrorCutAtCharacter(t *testing.T) {
	a := strings.Repeat("a", 498)
	for _, tc := range []struct{ name, msg, shown string }{
		{"two-byte character on the cut", a + "a" + "é" + "bb", a + "a" + "…"},
		{"three-byte character on the cut", a + "€" + "bb", a + "…"},
		{"character just before the cut", a + "é" + "bb", a + "é" + "…"},
		{"fits", a + "é", a + "é"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			s := &session{log: &logger{w: &b}}
			errObj, err := json.Marshal(map[string]any{"code": -32700, "message": tc.msg})
			if err != nil {
				t.Fatal(err)
			}
			s.idlessError(errObj)
			if want := "[agent-harness] upstream sent an error without a request id: " + tc.shown + "\n"; b.String() != want {
				t.Errorf("got  %q\nwant %q", b.String(), want)
			}
		})
	}
}

// TestResponseIDCutAtCharacter: the id of a response the upstream sent to
// no open request is peer text; the WARNING line shows it cut to 100 bytes
// where a character starts, ending "…" — a character on the cut is left
// out whole, never split into a stray \xc3 — and as it came when it fits.
func TestResponseIDCutAtCharacter(t *testing.T) {
	a := strings.Repeat("a", 97)
	for _, tc := range []struct{ name, id, shown string }{
		{"two-byte character on the cut", `"` + a + "a" + `é"`, `"` + a + "a" + "…"},
		{"three-byte character on the cut", `"` + a + `€"`, `"` + a + "…"},
		{"character just before the cut", `"` + a + `é"`, `"` + a + "é…"},
		{"fits", `"` + a[1:] + `é"`, `"` + a[1:] + `é"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			s := &session{log: &logger{w: &b}, reqs: newRequests()}
			s.fromUpstream([]byte(`{"jsonrpc":"2.0","id":` + tc.id + `,"result":{}}`))
			if want := "[agent-harness] WARNING: the upstream sent a response to a request that is not open (id " + tc.shown + "); it was dropped\n"; b.String() != want {
				t.Errorf("got  %q\nwant %q", b.String(), want)
			}
		})
	}
}
