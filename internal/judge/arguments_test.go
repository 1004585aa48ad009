package judge

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cuonztech/agent-harness/internal/report"
)

// fileOf judges s and returns the report file and the parsed first
// operation of it.
func fileOf(t *testing.T, s *sess, cfg Config) ([]byte, map[string]json.RawMessage) {
	t.Helper()
	file := s.judge(cfg).AppendFile(nil, report.FileMeta{Status: "finished"})
	if errs := newSchemaValidator(t, report.Schema).validate(file); len(errs) != 0 {
		t.Fatalf("schema violations: %v\n%s", errs, file)
	}
	var f struct {
		Report struct {
			Operations []map[string]json.RawMessage `json:"operations"`
		} `json:"report"`
	}
	if err := json.Unmarshal(file, &f); err != nil || len(f.Report.Operations) == 0 {
		t.Fatalf("no operation in %s (%v)", file, err)
	}
	return file, f.Report.Operations[0]
}

func sha(text string) string {
	sum := sha256.Sum256([]byte(text))
	return "sha256:" + hex.EncodeToString(sum[:])
}

// TestArgumentsAsSent: the first attempt's arguments are shown as the
// JSON value the agent sent — big integers and number notation digit for
// digit, member order and duplicates kept — and only once per operation.
func TestArgumentsAsSent(t *testing.T) {
	const args = `{ "amount": 123456789012345678901234567890, "rate": 1.50e3, "z": -0.0, "a": [1, {"b": "x\u00e9"}], "z": 2 }`
	s := newSess()
	s.f1(s.write("pay", args))
	s.wait(7)
	s.ok(s.write("pay", `{"amount":123456789012345678901234567890,"rate":1500,"z":-0.0,"a":[1,{"b":"xé"}],"z":2}`))
	s.end()
	file, op := fileOf(t, s, Config{Scenario: "F1"})
	var want bytes.Buffer
	json.Compact(&want, []byte(args))
	if got := string(op["arguments"]); got != want.String() {
		t.Errorf("arguments = %s, want %s", got, want.String())
	}
	if _, ok := op["argumentsTruncated"]; ok {
		t.Errorf("argumentsTruncated present for short arguments")
	}
	if !bytes.Contains(file, []byte(`"amount":123456789012345678901234567890,"rate":1.50e3`)) {
		t.Errorf("big integer or notation changed in the file:\n%s", file)
	}
	// The re-send in another notation shows its own arguments as sent
	// (behaviour §5.4); before, only the first attempt's were shown.
	if n := bytes.Count(file, []byte("123456789012345678901234567890")); n != 2 {
		t.Errorf("arguments appear %d times in the file, want twice (operation and the differing attempt)", n)
	}
	if !bytes.Contains(file, []byte(`{"at":7,"outcome":"executed","arguments":{"amount":123456789012345678901234567890,"rate":1500,`)) {
		t.Errorf("the second attempt's arguments are not in its attemptLog entry:\n%s", file)
	}
}

// TestAttemptArgumentsOnlyWhenDifferent: an attempt byte-identical to the
// first is listed without arguments (they are operations[].arguments).
func TestAttemptArgumentsOnlyWhenDifferent(t *testing.T) {
	s := newSess()
	s.f1(s.write("pay", `{"amount":12}`))
	s.ok(s.write("pay", `{"amount":12}`))
	s.end()
	r := Replay(Config{Scenario: "F1"}, s.evs).Report()
	for i, a := range r.Operations[0].AttemptLog {
		if a.Arguments != nil || a.JoinedBy != nil {
			t.Errorf("attempt %d: arguments %s, joinedBy %+v; want neither", i, a.Arguments, a.JoinedBy)
		}
	}
}

// TestArgumentsAbsentAndInvalid: no arguments are null; arguments that are
// not valid JSON are a string of their text with argumentsInvalid.
func TestArgumentsAbsentAndInvalid(t *testing.T) {
	s := newSess()
	s.ok(s.write("ping_write", ""))
	s.end()
	if _, op := fileOf(t, s, Config{}); string(op["arguments"]) != "null" {
		t.Errorf("absent arguments shown as %s, want null", op["arguments"])
	}
	for _, redact := range []bool{false, true} {
		s := newSess()
		s.ok(s.write("pay", `{"card":"4111`))
		s.end()
		_, op := fileOf(t, s, Config{RedactArguments: redact})
		var got string
		if err := json.Unmarshal(op["arguments"], &got); err != nil || string(op["argumentsInvalid"]) != "true" {
			t.Fatalf("redact=%v: arguments %s invalid %s", redact, op["arguments"], op["argumentsInvalid"])
		}
		want := `{"card":"4111`
		if redact {
			want = sha(`{"card":"4111`)
		}
		if got != want {
			t.Errorf("redact=%v: arguments %q, want %q", redact, got, want)
		}
	}
}

// TestArgumentsTruncatedAt4KiB: a JSON text longer than 4096 bytes is a
// string of its first 4096 bytes, cut before a multibyte character that
// does not fit whole; exactly 4096 bytes are kept as they are.
func TestArgumentsTruncatedAt4KiB(t *testing.T) {
	for _, ch := range []string{"a", "é", "€", "😀"} {
		for pad := 0; pad < 4; pad++ {
			// {"s":"<pad x's><chars…>"} well beyond 4096 bytes.
			text := `{"s":"` + strings.Repeat("x", pad) + strings.Repeat(ch, 5000/len(ch)) + `"}`
			t.Run(fmt.Sprintf("%dbyte/pad%d", len(ch), pad), func(t *testing.T) {
				s := newSess()
				s.ok(s.write("note", text))
				_, op := fileOf(t, s, Config{})
				var got string
				if err := json.Unmarshal(op["arguments"], &got); err != nil {
					t.Fatalf("arguments %.80s… is not a string: %v", op["arguments"], err)
				}
				if string(op["argumentsTruncated"]) != "true" {
					t.Errorf("argumentsTruncated = %s", op["argumentsTruncated"])
				}
				if len(got) > MaxArgumentsBytes || len(got) <= MaxArgumentsBytes-utf8.UTFMax || !utf8.ValidString(got) || !strings.HasPrefix(text, got) {
					t.Errorf("cut to %d bytes (valid UTF-8 %v, prefix %v)", len(got), utf8.ValidString(got), strings.HasPrefix(text, got))
				}
				if strings.ContainsRune(got, utf8.RuneError) {
					t.Errorf("a character was cut in half")
				}
			})
		}
	}
	for _, n := range []int{MaxArgumentsBytes, MaxArgumentsBytes + 1} {
		text := `{"s":"` + strings.Repeat("x", n-len(`{"s":""}`)) + `"}`
		s := newSess()
		s.ok(s.write("note", text))
		_, op := fileOf(t, s, Config{})
		_, truncated := op["argumentsTruncated"]
		if truncated != (n > MaxArgumentsBytes) || (!truncated && string(op["arguments"]) != text) {
			t.Errorf("%d bytes: truncated %v, arguments %.40s…", n, truncated, op["arguments"])
		}
	}
}

// TestArgumentsInvalidUTF8: arguments with invalid UTF-8 are shown with
// U+FFFD for each invalid byte and lone surrogate, so the file stays valid
// UTF-8, while the operations stay apart.
func TestArgumentsInvalidUTF8(t *testing.T) {
	s := newSess()
	s.ok(s.write("note", "{\"s\":\"a\xffb\",\"t\":\"\\ud800\"}"))
	s.ok(s.write("note", "{\"s\":\"a\xfeb\",\"t\":\"\\ud800\"}"))
	file, op := fileOf(t, s, Config{})
	if !utf8.Valid(file) {
		t.Errorf("report file is not valid UTF-8")
	}
	if got := string(op["arguments"]); got != `{"s":"a`+"\ufffd"+`b","t":"`+"\ufffd"+`"}` {
		t.Errorf("arguments = %s", got)
	}
	if n := bytes.Count(file, []byte(`"id":"op-`)); n != 2 {
		t.Errorf("%d operations, want 2", n)
	}
}

// redactionSession writes nested arguments with secrets twice (F1, then a
// re-send with another key) and reads once.
func redactionSession() *sess {
	s := newSess()
	s.f1(s.writeK("create_booking", `{"idempotency_key":"key-SECRET-1","customer":{"name":"Ada SECRET","vip":true,"age":36,"tags":["gold-SECRET",null],"card":4111111111111111},"amount":12.0}`))
	s.wait(3)
	s.ok(s.writeK("create_booking", `{"amount":1.2e1,"customer":{"name":"Ada SECRET","vip":true,"age":36,"tags":["gold-SECRET",null],"card":4111111111111111},"idempotency_key":"key-SECRET-2"}`))
	s.end()
	return s
}

// TestRedactArguments: every leaf (strings, numbers, booleans; key fields
// included) becomes "sha256:<hex>" of its canonical JSON text, null stays,
// member names stay; keys, keySummary, attemptLog and the Markdown show
// hashes; no secret remains; judging is unchanged.
func TestRedactArguments(t *testing.T) {
	cfg := Config{Scenario: "F1", RedactArguments: true}
	j := redactionSession().judge(cfg)
	file := j.AppendFile(nil, report.FileMeta{Status: "finished"})
	md := j.Markdown()
	for _, secret := range []string{"SECRET", "4111111111111111", `"Ada`, `"age":36`, `"vip":true`, "12.0", "1.2e1"} {
		if strings.Contains(string(file), secret) || strings.Contains(md, secret) {
			t.Errorf("%q left in the report (file or Markdown)", secret)
		}
	}
	_, op := fileOf(t, redactionSession(), cfg)
	want := `{"idempotency_key":"` + sha(`"key-SECRET-1"`) + `","customer":{"name":"` + sha(`"Ada SECRET"`) +
		`","vip":"` + sha("true") + `","age":"` + sha("36") + `","tags":["` + sha(`"gold-SECRET"`) + `",null],"card":"` +
		sha("4111111111111111") + `"},"amount":"` + sha("12") + `"}`
	if got := string(op["arguments"]); got != want {
		t.Errorf("redacted arguments\n got %s\nwant %s", got, want)
	}
	r := j.Report()
	k1, k2 := sha(`"key-SECRET-1"`), sha(`"key-SECRET-2"`)
	o := r.Operations[0]
	if fmt.Sprint(o.Keys) != fmt.Sprint([]string{k1, k2}) || o.AttemptLog[0].Key != k1 || o.AttemptLog[1].Key != k2 {
		t.Errorf("keys %v, attemptLog %+v", o.Keys, o.AttemptLog)
	}
	if len(r.KeySummary) != 2 || r.KeySummary[0].Key != k1 || r.KeySummary[1].Key != k2 {
		t.Errorf("keySummary %+v", r.KeySummary)
	}
	if !strings.Contains(md, k1) || !strings.Contains(md, `"vip":"`+sha("true")) {
		t.Errorf("Markdown lacks the hashed key or arguments:\n%s", md)
	}
	// Judging does not depend on redaction.
	plain := redactionSession().judge(Config{Scenario: "F1"}).Report()
	if plain.Verdict != r.Verdict || plain.VerdictReason != r.VerdictReason || len(plain.Violations) != 1 ||
		*plain.Violations[0].Duplicate != *r.Violations[0].Duplicate {
		t.Errorf("redaction changed the judgement: %+v vs %+v", plain.Violations, r.Violations)
	}
}

// TestRedactionHashesAreDeterministic: equal values hash equal whatever
// their notation (12, 12.0, 1.2e1; "A", "\u0041"), different values
// differ (12 and "12"), and a value hashes the same in arguments and keys.
func TestRedactionHashesAreDeterministic(t *testing.T) {
	same := [][2]string{
		{`{"n":12}`, `{"n":1.2e1}`},
		{`{"n":12}`, `{"n":12.000}`},
		{`{"s":"A"}`, `{"s":"\u0041"}`},
		{`{"s":"a/b"}`, `{"s":"a\/b"}`},
		{`{"b":true}`, `{ "b" : true }`},
	}
	for _, p := range same {
		if a, b := RedactArguments(json.RawMessage(p[0])), RedactArguments(json.RawMessage(p[1])); !bytes.Equal(a, b) {
			t.Errorf("%s and %s redact to %s and %s", p[0], p[1], a, b)
		}
	}
	for _, p := range [][2]string{{`{"n":12}`, `{"n":"12"}`}, {`{"b":true}`, `{"b":"true"}`}, {`{"s":"a"}`, `{"s":"A"}`}} {
		if a, b := RedactArguments(json.RawMessage(p[0])), RedactArguments(json.RawMessage(p[1])); bytes.Equal(a, b) {
			t.Errorf("%s and %s both redact to %s", p[0], p[1], a)
		}
	}
	if a, b := RedactArguments(json.RawMessage(`{"x":"v"}`)), RedactArguments(json.RawMessage(`{"x":"v"}`)); !bytes.Equal(a, b) || string(a) != `{"x":"`+sha(`"v"`)+`"}` {
		t.Errorf("redaction not stable: %s %s", a, b)
	}
	// A numeric key: the keys list and the key in the arguments agree.
	for _, key := range []string{`12`, `"12"`, `"a\"b"`} {
		s := newSess()
		s.ok(s.writeK("create_booking", `{"idempotency_key":`+key+`}`))
		r := s.judge(Config{RedactArguments: true}).Report()
		want := sha(key)
		if key == `"a\"b"` {
			want = sha(`"a\"b"`)
		}
		if got := r.Operations[0].Keys; len(got) != 1 || got[0] != want || !strings.Contains(string(r.Operations[0].Arguments), want) {
			t.Errorf("key %s: keys %v, arguments %s, want %s", key, got, r.Operations[0].Arguments, want)
		}
	}
}

// TestRedactedPairCheckReason: a pair-check plugin's explanation may quote
// argument values; with redaction a generic one is shown.
func TestRedactedPairCheckReason(t *testing.T) {
	build := func(redact bool) report.Report {
		s := newSess()
		s.f1(s.write("create_booking", `{"date":"2026-11-03","guest":"Ada"}`))
		s.ok(s.write("create_booking", `{"date":"03.11.2026","guest":"Ada"}`))
		s.end()
		return s.judge(Config{Scenario: "F1", RedactArguments: redact, PairCheckers: []PairChecker{quotingPair{}}}).Report()
	}
	if r := build(false); !strings.Contains(r.VerdictReason, "03.11.2026") {
		t.Fatalf("plugin text not shown without redaction: %s", r.VerdictReason)
	}
	r := build(true)
	if r.Verdict != report.VerdictNotTested || strings.Contains(r.VerdictReason, "2026") {
		t.Errorf("redacted: %s %s", r.Verdict, r.VerdictReason)
	}
	for _, o := range r.Observations {
		if strings.Contains(o.Message, "2026") {
			t.Errorf("observation quotes a value: %s", o.Message)
		}
	}
}

// quotingPair answers Possible and quotes the later arguments.
type quotingPair struct{}

func (quotingPair) Compare(_ string, _, later json.RawMessage) (Sameness, string, error) {
	return Possible, "dates match: " + string(later), nil
}

// TestAttemptLog: per attempt, when it was sent (ms since the run
// started), its outcome as it changes (in-flight, then the answer), the
// fault the agent saw and the key.
func TestAttemptLog(t *testing.T) {
	start := t0.Add(-250 * time.Millisecond)
	s := newSess()
	a := s.writeK("create_booking", `{"room":"12","idempotency_key":"k1"}`)
	s.forwarded(a)
	j := Replay(Config{Scenario: "F1", Start: start}, s.evs)
	if got := j.Report().Operations[0].AttemptLog; fmt.Sprint(got) != fmt.Sprint([]report.AttemptInfo{{At: 250, Outcome: report.AttemptInFlight, Key: "k1"}}) {
		t.Errorf("in flight: %+v", got)
	}
	s.answer(a, Executed, "F1", "timeout")
	s.wait(40)
	s.write("create_booking", `{"room":"12"}`) // never answered
	s.wait(2)
	s.f2(s.write("create_booking", `{"room":"12","idempotency_key":"k2"}`), 1000)
	s.wait(1)
	s.rejected(s.write("create_booking", `{"room":"12"}`))
	s.end() // b is still in flight: unknown
	r := Replay(Config{Scenario: "F1", Start: start}, s.evs).Report()
	want := []report.AttemptInfo{
		{At: 250, Outcome: report.AttemptExecuted, Fault: "timeout", Key: "k1"},
		{At: 290, Outcome: report.AttemptUnknown, Arguments: json.RawMessage(`{"room":"12"}`)},
		{At: 292, Outcome: report.AttemptInjectedNotExecuted, Fault: "rate_limit", Key: "k2", Arguments: json.RawMessage(`{"room":"12","idempotency_key":"k2"}`)},
		{At: 293, Outcome: report.AttemptUpstreamRejected, Arguments: json.RawMessage(`{"room":"12"}`)},
	}
	if got := r.Operations[0].AttemptLog; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("attemptLog\n got %+v\nwant %+v", got, want)
	}
	// Without Config.Start the run starts at the first event.
	if got := Replay(Config{Scenario: "F1"}, s.evs).Report().Operations[0].AttemptLog[1].At; got != 40 {
		t.Errorf("at without Start = %d, want 40", got)
	}
}

// TestAttemptLogBounded: at most the first 100 attempts are listed; the
// others are counted.
func TestAttemptLogBounded(t *testing.T) {
	s := newSess()
	for range 130 {
		s.ok(s.write("create_booking", booking))
		s.wait(1)
	}
	_, op := fileOf(t, s, Config{})
	var log []report.AttemptInfo
	json.Unmarshal(op["attemptLog"], &log)
	if len(log) != maxAttemptLog || log[99].At != 99 || string(op["attemptLogOmitted"]) != "30" {
		t.Errorf("attemptLog has %d entries, omitted %s", len(log), op["attemptLogOmitted"])
	}
}

// TestMarkdownViolationDetail: a violation in the Markdown shows the
// operation's arguments and its attempts in order.
func TestMarkdownViolationDetail(t *testing.T) {
	md := naive("F1").judge(Config{Scenario: "F1"}).Markdown()
	for _, want := range []string{
		"  - arguments: `{\"guest\":\"Ada\",\"date\":\"2026-11-03\"}`\n",
		"  - attempts: 0 ms executed (agent saw timeout) → 5 ms executed\n",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md)
		}
	}
	// The code span of a value with backticks: report.TestMarkdownCodeSpan.
}

// FuzzShowArguments: whatever the agent sends, the shown arguments are
// valid JSON in valid UTF-8 of at most 4096 bytes of text (plus the
// quoting of a string); redacted, no leaf other than null survives.
func FuzzShowArguments(f *testing.F) {
	for _, seed := range []string{
		`{"a":1}`, `{"a":[1,2,{"b":null}],"a":"x"}`, `[]`, `"s"`, `12.5e-3`, `{`, ``, " ",
		"{\"s\":\"\xff\"}", `{"s":"\ud83d"}`, `[[[[[[]]]]]]`, `{"":{"":[true,false]}}`,
		`{"k":"` + strings.Repeat("€", 1400) + `"}`,
	} {
		f.Add([]byte(seed), false)
		f.Add([]byte(seed), true)
	}
	f.Fuzz(func(t *testing.T, raw []byte, redact bool) {
		s := showArguments(raw, redact)
		if !json.Valid(s.value) || !utf8.Valid(s.value) {
			t.Fatalf("shown arguments %q are not valid JSON in UTF-8", s.value)
		}
		if s.truncated || s.invalid {
			var str string
			if err := json.Unmarshal(s.value, &str); err != nil {
				t.Fatalf("truncated/invalid arguments %q are not a string", s.value)
			}
			if len(str) > MaxArgumentsBytes && !(s.invalid && redact) {
				t.Fatalf("%d bytes shown", len(str))
			}
		}
		if !redact || s.truncated || s.invalid {
			return
		}
		var v any
		json.Unmarshal(s.value, &v)
		var check func(any)
		check = func(v any) {
			switch x := v.(type) {
			case map[string]any:
				for _, e := range x {
					check(e)
				}
			case []any:
				for _, e := range x {
					check(e)
				}
			case string:
				if !strings.HasPrefix(x, "sha256:") || len(x) != len("sha256:")+64 {
					t.Fatalf("leaf %q not redacted", x)
				}
			case nil:
			default:
				t.Fatalf("leaf %v not redacted", x)
			}
		}
		check(v)
	})
}

// compactPrefix gives json.Compact's output, or its first bytes and more
// when that is longer than the limit.
func FuzzCompactPrefix(f *testing.F) {
	for _, s := range []string{`{"a": [1, 2, {"b": "x y\" z"}]}`, ` "\\" `, `[ ]`, `{"k":"\u00e9 \n"}`, `12`} {
		f.Add([]byte(s), 8)
	}
	f.Fuzz(func(t *testing.T, raw []byte, limit int) {
		if !json.Valid(raw) || limit < 0 || limit > 1<<16 {
			return
		}
		var want bytes.Buffer
		if err := json.Compact(&want, raw); err != nil {
			t.Fatal(err)
		}
		got, more := compactPrefix(raw, limit)
		if more != (want.Len() > limit) || !bytes.HasPrefix(want.Bytes(), got) || !more && !bytes.Equal(got, want.Bytes()) || more && len(got) <= limit {
			t.Fatalf("compactPrefix(%q, %d) = %q, %v; compact %q", raw, limit, got, more, want.Bytes())
		}
	})
}
