package trace

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/jsonschema"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
)

func TestMillisRoundTrip(t *testing.T) {
	for _, d := range []time.Duration{0, 1, 999, time.Millisecond, 1500 * time.Microsecond, 12*time.Millisecond + 345678*time.Nanosecond, 90 * time.Hour} {
		b, _ := Millis(d).MarshalJSON()
		var m Millis
		if err := m.UnmarshalJSON(b); err != nil || time.Duration(m) != d {
			t.Errorf("%v → %s → %v, %v", d, b, time.Duration(m), err)
		}
	}
	for _, bad := range []string{"", "-1", "1e3", "1.1234567", "+1", `"1"`, "1.", ".5", "99999999999999999999"} {
		var m Millis
		if m.UnmarshalJSON([]byte(bad)) == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// record writes a small session's trace and returns its bytes.
func record(t *testing.T) (string, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "t.trace")
	start := time.Unix(1000, 0)
	w, err := Create(path, Header{Settings: Settings{Scenario: "F1", Mode: "deterministic", Kind: "proxy", KeyFields: []string{"idempotency_key"}}}, start)
	if err != nil {
		t.Fatal(err)
	}
	def := json.RawMessage(`{"name":"create_booking","inputSchema":{"type":"object","properties":{"idempotency_key":{"type":"string"}}}}`)
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	evs := []judge.Event{
		{Kind: judge.EventTools, Time: at(1), Tools: []string{"create_booking"},
			Listing: []classify.Entry{{Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{"idempotency_key"}, Definition: def}}},
		{Kind: judge.EventCall, Time: at(2), Call: 1, Tool: "create_booking", Class: classify.Write, AcceptsKey: true,
			Params: json.RawMessage(`{"name":"create_booking", "arguments":{"room":"<12>"}}`)},
		{Kind: judge.EventForwarded, Time: at(3), Call: 1},
		{Kind: judge.EventAnswer, Time: at(4), Call: 1, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout",
			ResponseDigest: "ab", Result: json.RawMessage(`{"content":[]}`)},
		{Kind: judge.EventDelivered, Time: at(4), Call: 1},
	}
	for _, ev := range evs {
		if err := w.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.PluginFailure(at(5), "p", "trap", false); err != nil {
		t.Fatal(err)
	}
	if err := w.Record(judge.Event{Kind: judge.EventEnd, Time: at(6)}); err != nil {
		t.Fatal(err)
	}
	w.Close()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return path, b
}

// TestLinesMatchSchema: every line the writer produces is valid against
// the published schema, and the schema rejects a wrong line.
func TestLinesMatchSchema(t *testing.T) {
	_, b := record(t)
	v, err := jsonschema.New(Schema)
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
	if len(lines) != 8 {
		t.Fatalf("%d lines:\n%s", len(lines), b)
	}
	for _, l := range lines {
		if errs := v.Validate(l); len(errs) > 0 {
			t.Errorf("%s: %v", l, errs)
		}
	}
	if !bytes.Contains(b, []byte(`"arguments":{"room":"<12>"}`)) {
		t.Errorf("params not kept as sent (HTML escaping?):\n%s", b)
	}
	for _, bad := range []string{`{"type":"call","t":1,"session":1}`, `{"type":"answer","t":-1,"session":1,"call":1,"outcome":"executed"}`, `{"type":"end","t":1,"session":1,"x":1}`} {
		if len(v.Validate([]byte(bad))) == 0 {
			t.Errorf("schema accepts %s", bad)
		}
	}
}

// TestReadRejudge: a trace read back judges like the events applied live.
func TestReadRejudge(t *testing.T) {
	_, b := record(t)
	tr, err := Read(bytes.NewReader(b))
	if err != nil || tr.Warning != "" {
		t.Fatalf("%v %q", err, tr.Warning)
	}
	if len(tr.Lines) != 7 || tr.Header.Settings.Scenario != "F1" {
		t.Fatalf("%+v", tr)
	}
	j, meta := rejudge(tr, Options{Settings: tr.Header.Settings})
	r := j.Report()
	if meta.Status != "finished" || r.Coverage.Calls.Write != 1 || !r.Coverage.ScenarioFired || len(r.PluginFailures) != 1 {
		t.Errorf("meta %+v report %+v", meta, r)
	}
	if string(r.Operations[0].Arguments) != `{"room":"<12>"}` {
		t.Errorf("arguments %s", r.Operations[0].Arguments)
	}
	// Dropping plugin failures, and re-classifying with the tool a read.
	s := tr.Header.Settings
	s.ReadTools = []string{"create_booking"}
	s.WriteTools = []string{"nothing"}
	j, meta = rejudge(tr, Options{Settings: s, Reclassify: true, DropPluginFailures: true})
	r = j.Report()
	if r.Coverage.Calls.Write != 0 || r.Coverage.Calls.Read != 1 || len(r.PluginFailures) != 0 || !strings.Contains(string(meta.ToolClassification), `"class":"read"`) {
		t.Errorf("re-classified: %+v %s", r.Coverage, meta.ToolClassification)
	}
}

func TestReadTornAndBad(t *testing.T) {
	_, b := record(t)
	torn := append(bytes.Clone(b), `{"type":"call","t":7,"ses`...)
	tr, err := Read(bytes.NewReader(torn))
	if err != nil || !strings.Contains(tr.Warning, "line 9 is incomplete") || len(tr.Lines) != 7 {
		t.Errorf("torn: %v %q %d", err, tr.Warning, len(tr.Lines))
	}
	// The same damage with a line break after it is not a torn last line.
	if _, err := Read(bytes.NewReader(append(torn, '\n'))); err == nil || !strings.Contains(err.Error(), "line 9") {
		t.Errorf("damaged line: %v", err)
	}
	header, _, _ := bytes.Cut(b, []byte("\n"))
	for name, in := range map[string]string{
		"wrong version": strings.Replace(string(header), `"version":2`, `"version":"2"`, 1),
		"version 3":     strings.Replace(string(header), `"version":2`, `"version":3`, 1),
		"not a header":  `{"type":"call","t":1,"session":1,"call":1}` + "\n",
		"wrong type":    string(header) + "\n" + `{"type":"call","t":"1","session":1,"call":1}` + "\n",
		"unknown type":  string(header) + "\n" + `{"type":"nap","t":1,"session":1}` + "\n",
	} {
		if _, err := Read(strings.NewReader(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for _, in := range []string{"", string(header) + "\n"} {
		tr, err := Read(strings.NewReader(in))
		if err != nil || len(tr.Lines) != 0 {
			t.Errorf("%q: %v", in, err)
		}
		j, _ := rejudge(tr, Options{Settings: tr.Header.Settings})
		if v, _ := j.Verdict(); v != report.VerdictNotTested {
			t.Errorf("%q: verdict %s", in, v)
		}
	}
}

// TestPluginFailuresRejudged: recorded failures and disablings make the
// re-judged plugin status, joined with the failures of the plugins loaded
// now (the larger count; the sum for a version 1 trace, which recorded no
// equivalence failures), and a recorded disabling disables the loaded
// plugin at its place in the trace.
func TestPluginFailuresRejudged(t *testing.T) {
	_, b := record(t)
	header, rest, _ := bytes.Cut(b, []byte("\n"))
	end := []byte(`{"type":"end"`)
	i := bytes.Index(rest, end)
	disabling := `{"type":"plugin-failure","t":5.5,"session":1,"plugin":"p","detail":"disabled after 2 consecutive failures","disabled":true}` + "\n"
	v2 := slices.Concat(header, []byte("\n"), rest[:i], []byte(disabling), rest[i:])
	v1 := bytes.Replace(v2, []byte(`"version":2`), []byte(`"version":1`), 1)
	v1 = bytes.Replace(v1, []byte(`,"disabled":true`), nil, 1)
	for _, tc := range []struct {
		name  string
		trace []byte
		now   int // failures of the plugin loaded now
		want  report.PluginFailure
	}{
		{"version 2, nothing now", v2, 0, report.PluginFailure{Plugin: "p", Status: "disabled", Failures: 1, Detail: "trap"}},
		{"version 2, fewer now", v2, 1, report.PluginFailure{Plugin: "p", Status: "disabled", Failures: 1, Detail: "trap"}},
		{"version 2, more now", v2, 3, report.PluginFailure{Plugin: "p", Status: "disabled", Failures: 3, Detail: "trap"}},
		{"version 1: disabling by its detail, counts added", v1, 2, report.PluginFailure{Plugin: "p", Status: "disabled", Failures: 3, Detail: "trap"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tr, err := Read(bytes.NewReader(tc.trace))
			if err != nil {
				t.Fatal(err)
			}
			var disabled []string
			j, _ := rejudge(tr, Options{Settings: tr.Header.Settings,
				Judge: judge.Config{PluginStatus: func() []judge.PluginState {
					return []judge.PluginState{{Name: "other"}, {Name: "p", Failures: tc.now, Detail: "now"}}
				}},
				DisablePlugin: func(name, detail string) { disabled = append(disabled, name+": "+detail) },
			})
			r := j.Report()
			if len(r.PluginFailures) != 1 || r.PluginFailures[0] != tc.want {
				t.Errorf("pluginFailures %+v, want [%+v]", r.PluginFailures, tc.want)
			}
			if !slices.Equal(disabled, []string{"p: disabled after 2 consecutive failures"}) {
				t.Errorf("disabled %q", disabled)
			}
			if v, reason := j.Verdict(); v != report.VerdictNotTested || !strings.Contains(reason, `Plugin "p" failed (trap) and was disabled`) {
				t.Errorf("verdict %s (%s)", v, reason)
			}
		})
	}
}

// FuzzRead: hostile traces (torn, huge, wrong versions and types) are
// read or refused without a panic, and whatever is read can be judged.
func FuzzRead(f *testing.F) {
	path := filepath.Join(f.TempDir(), "seed.trace")
	w, err := Create(path, Header{Settings: Settings{Scenario: "F2", KeyFields: []string{"k"}}}, time.Unix(0, 0))
	if err != nil {
		f.Fatal(err)
	}
	w.Record(judge.Event{Kind: judge.EventCall, Time: time.Unix(0, 5), Call: 1, Tool: "w", Class: classify.Write, Params: json.RawMessage(`{"arguments":{"a":1}}`)})
	w.Record(judge.Event{Kind: judge.EventAnswer, Time: time.Unix(0, 9), Call: 1, Outcome: judge.InjectedNotExecuted, Scenario: "F2", RetryAfterMs: 1000})
	w.Close()
	seed, _ := os.ReadFile(path)
	f.Add(seed)
	f.Add(seed[:len(seed)-7])
	f.Add([]byte(""))
	f.Add([]byte("\n\n"))
	f.Add([]byte(`{"type":"header","format":"agent-harness-trace","version":99}`))
	f.Add(append(bytes.Replace(bytes.Clone(seed), []byte(`"version":2`), []byte(`"version":1`), 1),
		`{"type":"plugin-failure","t":1,"session":1,"plugin":"p","detail":"disabled after 5 consecutive failures"}`+"\n"...))
	f.Add(append(bytes.Clone(seed), `{"type":"plugin-failure","t":1,"session":1,"plugin":"p","detail":"x","disabled":true}`+"\n"...))
	f.Add(append(bytes.Clone(seed), `{"type":"tools","t":1,"session":1,"tools":[{"definition":{"name":5},"classification":{"name":"x","class":"write","reason":"","keyFields":null}}]}`+"\n"...))
	f.Add(append(bytes.Clone(seed), `{"type":"answer","t":1e400,"session":1,"call":-3}`+"\n"...))
	f.Fuzz(func(t *testing.T, data []byte) {
		tr, err := Read(bytes.NewReader(data))
		if err != nil {
			if strings.ContainsAny(err.Error(), "\n") && !strings.Contains(err.Error(), "line ") {
				t.Errorf("error %q", err)
			}
			return
		}
		s := tr.Header.Settings
		rejudge(tr, Options{Settings: s})
		rejudge(tr, Options{Settings: s, Reclassify: true, RetryAfterMs: 5})
	})
}

// A tool listed twice, once without and once with idempotentHint, is not
// idempotent (the live relay merges the definitions so): re-judging with
// re-classification must keep its double execution a FAIL.
func TestRejudgeToolListedTwice(t *testing.T) {
	path := filepath.Join(t.TempDir(), "twice.trace")
	start := time.Unix(1000, 0)
	w, err := Create(path, Header{Settings: Settings{Scenario: "F1", Mode: "deterministic", Kind: "proxy", KeyFields: []string{"idempotency_key"}}}, start)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	plain := json.RawMessage(`{"name":"pay_invoice","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true}}`)
	idem := json.RawMessage(`{"name":"pay_invoice","inputSchema":{"type":"object"},"annotations":{"destructiveHint":true,"idempotentHint":true}}`)
	params := json.RawMessage(`{"name":"pay_invoice","arguments":{"invoice":"A1","amount":10}}`)
	for _, ev := range []judge.Event{
		{Kind: judge.EventTools, Time: at(1), Tools: []string{"pay_invoice"}, Listing: []classify.Entry{
			{Name: "pay_invoice", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{}, Definition: plain},
			{Name: "pay_invoice", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{}, Idempotent: true, Definition: idem}}},
		{Kind: judge.EventCall, Time: at(2), Call: 1, Tool: "pay_invoice", Class: classify.Write, Params: params},
		{Kind: judge.EventForwarded, Time: at(3), Call: 1},
		{Kind: judge.EventAnswer, Time: at(4), Call: 1, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout", ResponseDigest: "a"},
		{Kind: judge.EventCall, Time: at(5), Call: 2, Tool: "pay_invoice", Class: classify.Write, Params: params},
		{Kind: judge.EventForwarded, Time: at(6), Call: 2},
		{Kind: judge.EventAnswer, Time: at(7), Call: 2, Outcome: judge.Executed, ResponseDigest: "b"},
		{Kind: judge.EventEnd, Time: at(8)},
	} {
		if err := w.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr, err := Read(f)
	if err != nil {
		t.Fatal(err)
	}
	for _, reclassify := range []bool{false, true} {
		j, _ := rejudge(tr, Options{Settings: tr.Header.Settings, Reclassify: reclassify})
		if v, reason := j.Verdict(); v != report.VerdictFail || !strings.Contains(reason, "DUPLICATE_EXECUTION") {
			t.Errorf("reclassify=%v: %s (%s), want FAIL DUPLICATE_EXECUTION", reclassify, v, reason)
		}
	}
}
