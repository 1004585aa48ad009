package harness

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
)

// TestConfigFromTraceHeader: the Config `agent-harness judge` derives from
// a trace's header (FromSettings) records again the same header, and
// composes the same judge configuration and classification as the live
// session it was recorded from, so a re-judged trace is judged by the
// same rules.
func TestConfigFromTraceHeader(t *testing.T) {
	live := Config{
		Scenario: "F2", RetryAfter: 7, Classification: Classification{KeyFields: []string{"booking-key", "request_id"},
			WriteTools: []string{"book_*"}, ReadTools: []string{"peek_*"}, IdempotentTools: []string{"cancel_*"},
			IgnoreIdempotentHint: true}, RedactArguments: true,
		PluginConfig: map[string]json.RawMessage{"p": json.RawMessage(`{"a":1}`)},
	}
	st := live.TraceSettings("F2", "deterministic", nil)
	re := FromSettings(st)
	if got := re.TraceSettings("F2", "deterministic", nil); !reflect.DeepEqual(got, st) {
		t.Errorf("settings of the re-judged Config\n got %+v\nwant %+v", got, st)
	}
	start := time.Unix(5, 0)
	lj, rj := live.JudgeConfig("F2", Extras{}, start), re.JudgeConfig("F2", Extras{}, start)
	if !reflect.DeepEqual(lj.KeyFields.Names(), rj.KeyFields.Names()) || lj.Scenario != rj.Scenario || lj.Kind != rj.Kind ||
		lj.RedactArguments != rj.RedactArguments || rj.Kind != "proxy" || !rj.RedactArguments {
		t.Errorf("judge config live %+v, re-judged %+v", lj, rj)
	}
	for _, tool := range []classify.Tool{
		{Name: "book_room"}, {Name: "peek_room"}, {Name: "cancel_room"}, {Name: "create_x"},
		{Name: "set_x", Annotations: json.RawMessage(`{"readOnlyHint":false,"idempotentHint":true}`)},
	} {
		if l, r := live.Classifier(nil)(tool), re.Classifier(nil)(tool); l != r {
			t.Errorf("%s: live %+v, re-judged %+v", tool.Name, l, r)
		}
	}
}

// TestJudgeConfigKind: a Config without a kind is judged as "proxy" (the
// live proxy, the benchmark, a trace without one); the demo says "demo".
func TestJudgeConfigKind(t *testing.T) {
	if k := (Config{}).JudgeConfig("", Extras{}, time.Time{}).Kind; k != "proxy" {
		t.Errorf("kind %q, want proxy", k)
	}
	if k := (Config{Kind: "demo"}).JudgeConfig("", Extras{}, time.Time{}).Kind; k != "demo" {
		t.Errorf("kind %q, want demo", k)
	}
}
