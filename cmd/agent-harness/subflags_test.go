package main

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestParseJudgeFlags(t *testing.T) {
	tests := []struct {
		args []string
		err  string
	}{
		{[]string{"t.trace", "--key-fields", "a,b", "--key-fields=c", "--ignore-idempotent-hint"}, ""},
		{[]string{"--report-file", "x", "--report-file", "y"}, "flag --report-file given twice"},
		{[]string{"--report-file", "--plugin", "p"}, "flag --report-file needs a value"},
		{[]string{"--not-tested-ok=yes"}, "flag --not-tested-ok takes no value"},
		{[]string{"--retry-after", "0"}, "flag --retry-after: 0 is out of range (1–86400 seconds)"},
		{[]string{"--plugin-config", "x"}, `flag --plugin-config: "x" is not NAME=JSON with valid JSON`},
		{[]string{"-k"}, "unknown flag -k (flags start with --"},
		{[]string{"--write-tools", "a,,b"}, `flag --write-tools: empty element in "a,,b"`},
		{[]string{"--write-tools="}, "flag --write-tools: empty value"},
	}
	for _, tt := range tests {
		o := judgeOptions{}
		o.pluginConfig = map[string]json.RawMessage{}
		_, err := judgeFlagSet(&o).parse(tt.args)
		var ue usageError
		switch {
		case tt.err == "" && err != nil:
			t.Errorf("%q: %v", tt.args, err)
		case tt.err != "" && (!errors.As(err, &ue) || !strings.HasPrefix(ue.msg, tt.err)):
			t.Errorf("%q: %v, want %q", tt.args, err, tt.err)
		}
	}
	o := judgeOptions{}
	words, err := judgeFlagSet(&o).parse([]string{"a", "--", "--b"})
	if err != nil || strings.Join(words, " ") != "a --b" {
		t.Errorf("positional: %v %q", err, words)
	}
	if _, err := judgeFlagSet(&o).parse([]string{"--bogus", "-h"}); !errors.Is(err, errHelp) {
		t.Errorf("-h does not win: %v", err)
	}
}

// FuzzParseCmdFlags: any command line is parsed or refused with one line.
func FuzzParseCmdFlags(f *testing.F) {
	f.Add("t.trace\x00--key-fields\x00a,b\x00--plugin\x00p.wasm")
	f.Add("--format=junit\x00--not-tested-ok\x00x")
	f.Add("--\x00--x\x00-")
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		o := judgeOptions{}
		o.pluginConfig = map[string]json.RawMessage{}
		_, err := judgeFlagSet(&o).parse(args)
		var ue usageError
		if err != nil && !errors.Is(err, errHelp) && (!errors.As(err, &ue) || strings.ContainsAny(ue.msg, "\n\r")) {
			t.Errorf("%q: %v", args, err)
		}
	})
}
