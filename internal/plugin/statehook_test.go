package plugin

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/judge"
)

// TestStateAnswerChecked: the host refuses a state hook's answer that is
// not one integer within ±2^53 or null per operation asked (a hand-made
// guest can send anything the SDK would not).
func TestStateAnswerChecked(t *testing.T) {
	in := judge.StateInput{Operations: []judge.StateOperation{{ID: "op-1"}, {ID: "op-2"}}}
	for _, c := range []struct{ out, err string }{
		{`{"effects":{"op-1":1,"op-2":null}}`, ""},
		{``, ""}, // no opinion: every operation null
		{`{"effects":{"op-1":-2,"op-2":9007199254740992}}`, ""},
		{`{"effects":{"op-1":1.5,"op-2":null}}`, `effect 1.5 of operation "op-1" is not an integer`},
		{`{"effects":{"op-1":1e3,"op-2":null}}`, `effect 1e3 of operation "op-1" is not an integer`},
		{`{"effects":{"op-1":"1","op-2":null}}`, `is not an integer`},
		{`{"effects":{"op-1":9007199254740993,"op-2":null}}`, `not an integer within ±2^53`},
		{`{"effects":{"op-1":1,"op-2":1,"op-3":1}}`, `effects for operation "op-3", which was not asked about`},
		{`{"effects":{"op-1":1}}`, `no entry for operation "op-2"`},
		{`{"effect":{"op-1":1}}`, `output has no "effects" object`},
		{`{"effects":{"op-1":1,"op-2":1}} x`, `output has data after the JSON value`},
	} {
		effects, err := parseEffects([]byte(c.out), in)
		if err == nil {
			err = judge.CheckEffects(in, effects)
		}
		if got := fmt.Sprint(err); c.err == "" && err != nil || c.err != "" && !strings.Contains(got, c.err) {
			t.Errorf("%s: %v, want %q", c.out, err, c.err)
		}
	}
	b, _ := json.Marshal(in)
	if !strings.Contains(string(b), `"operations":[{"id":"op-1"`) {
		t.Errorf("input %s", b)
	}
}
