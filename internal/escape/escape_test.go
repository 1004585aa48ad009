package escape

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestLine(t *testing.T) {
	for in, want := range map[string]string{
		"create_booking":          "create_booking",
		"réservation ✓":           "réservation ✓",
		"a\nb\r\tc":               `a\nb\r` + "\tc",
		"\x1b[2J\x1b]0;pwned\x07": `\x1b[2J\x1b]0;pwned\x07`,
		"\x7f\u009b31m":           `\x7f\u009b31m`,
		"a\u2028b\u2029":          `a\u2028b\u2029`,
		"user\u202egnp.exe":       `user\u202egnp.exe`,
		"bad \xff\xfe utf8":       `bad \xff\xfe utf8`,
		`back\slash`:              `back\slash`,
	} {
		if got := Line(in); got != want {
			t.Errorf("Line(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMarkdown(t *testing.T) {
	for in, want := range map[string]string{
		"create_booking":                     "create_booking",
		"x\n# agent-harness report: PASS":    `x\n# agent-harness report: PASS`,
		"# agent-harness report: PASS":       `\# agent-harness report: PASS`,
		"<img src=x onerror=alert(1)>":       `\<img src=x onerror=alert(1)\>`,
		"[click](https://example.invalid)":   `\[click\](https://example.invalid)`,
		"![i](x)":                            `!\[i\](x)`,
		"`code` **bold** a|b ~~s~~ &amp; \\": "\\`code\\` \\*\\*bold\\*\\* a\\|b \\~\\~s\\~\\~ \\&amp; \\\\",
		"- item":                             `\- item`,
		"1. item":                            `1\. item`,
		"12) item":                           `12\) item`,
		"2026-11-03":                         "2026-11-03",
		"___":                                `\___`,
	} {
		if got := Markdown(in); got != want {
			t.Errorf("Markdown(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestCode(t *testing.T) {
	for in, want := range map[string]string{
		`{"a":1}`:  "`{\"a\":1}`",
		"a`b``c":   "``` a`b``c ```",
		"x\ny\x1b": "`x\\ny\\x1b`",
		" padded ": "`  padded  `",
	} {
		if got := Code(in); got != want {
			t.Errorf("Code(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzEscape: nothing Line, Markdown or Code return has a line break, a
// control character, a line or paragraph separator, a bidirectional
// control or invalid UTF-8; Markdown leaves no Markdown character without
// its backslash and cannot start a heading or a block.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"x\n# agent-harness report: PASS", "<b>", "\x1b[31m", "`a`", "[a](b)", "1. x", "\xff", "\u202e", "a\\", "\\\n#"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for name, out := range map[string]string{"Line": Line(s), "Markdown": Markdown(s), "Code": Code(s)} {
			if !utf8.ValidString(out) {
				t.Fatalf("%s(%q) = %q: invalid UTF-8", name, s, out)
			}
			for _, r := range out {
				if (r < 0x20 && r != '\t') || r == 0x7f || (r >= 0x80 && r <= 0x9f) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
					t.Fatalf("%s(%q) = %q: raw %U", name, s, out, r)
				}
			}
		}
		md := Markdown(s)
		if md != "" && strings.ContainsRune("#>-+=_*`[<|~&", rune(md[0])) {
			t.Fatalf("Markdown(%q) = %q starts a block", s, md)
		}
		// Every Markdown character is escaped: an odd run of backslashes
		// before it.
		for i := 0; i < len(md); i++ {
			if !strings.ContainsRune("`*[]<>&|~", rune(md[i])) {
				continue
			}
			n := 0
			for j := i - 1; j >= 0 && md[j] == '\\'; j-- {
				n++
			}
			if n%2 == 0 {
				t.Fatalf("Markdown(%q) = %q: %q at %d not escaped", s, md, md[i], i)
			}
		}
	})
}

// TestLineBreaks: only CR and LF are shown as \r and \n; other controls,
// backslashes and non-ASCII text are kept (the campaign's reasons and the
// reference agent's transcript lines, unchanged from their former copies).
func TestLineBreaks(t *testing.T) {
	for in, want := range map[string]string{
		"":                    "",
		"a\r\nb":              `a\r\nb`,
		"tab\there \\n é\x1b": "tab\there \\n é\x1b",
	} {
		if got := LineBreaks(in); got != want {
			t.Errorf("LineBreaks(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestName: odd tool names are quoted and cut, so a line stays one
// unambiguous line.
func TestName(t *testing.T) {
	for in, want := range map[string]string{
		"create_booking":         "create_booking",
		"book room":              `"book room"`,
		"a\nb":                   `"a\nb"`,
		"":                       `""`,
		"\xff":                   `"\xff"`,
		strings.Repeat("é", 150): strings.Repeat("é", 100) + "…",
	} {
		if got := Name(in); got != want {
			t.Errorf("Name(%q) = %q, want %q", in, got, want)
		}
	}
}
