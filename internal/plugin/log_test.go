package plugin

import (
	"bytes"
	"strings"
	"testing"
)

func TestCapLog(t *testing.T) {
	tests := []struct {
		name   string
		limit  int
		writes [][2]string // stream, text
		out    string
		kept   string
	}{
		{name: "lines", limit: 100, writes: [][2]string{{"stdout", "a\nb\n"}},
			out: "[agent-harness] plugin p: a\n[agent-harness] plugin p: b\n", kept: "a\nb\n"},
		{name: "partial lines per stream", limit: 100, writes: [][2]string{{"stdout", "he"}, {"stderr", "x"}, {"stdout", "llo\n"}, {"stderr", "y\n"}},
			out: "[agent-harness] plugin p: hello\n[agent-harness] plugin p: xy\n", kept: "hello\nxy\n"},
		{name: "limit", limit: 6, writes: [][2]string{{"stdout", "abc\ndef\nghi\n"}},
			out: "[agent-harness] plugin p: abc\n[agent-harness] plugin p: output limit (6 bytes) reached; further output dropped\n", kept: "abc\n"},
		{name: "long line without newline", limit: 1 << 20, writes: [][2]string{{"stdout", strings.Repeat("x", maxPartialLine)}},
			out: "[agent-harness] plugin p: " + strings.Repeat("x", maxPartialLine) + "\n", kept: strings.Repeat("x", maxPartialLine) + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			l := newCapLog(&out, "p", tt.limit)
			for _, w := range tt.writes {
				l.write(w[0], []byte(w[1]))
			}
			if out.String() != tt.out || l.String() != tt.kept {
				t.Errorf("out %q kept %q\nwant %q kept %q", out.String(), l.String(), tt.out, tt.kept)
			}
		})
	}
}
