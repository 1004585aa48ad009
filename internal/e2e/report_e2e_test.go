package e2e

// End-to-end tests of the report amendments of behaviour §5.4: arguments and
// attempt log per operation, the transport, and --redact-arguments.

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

// operationFor is an operations[] entry with the §11.6 fields.
type operationFor struct {
	ID         string          `json:"id"`
	Arguments  json.RawMessage `json:"arguments"`
	Keys       []string        `json:"keys"`
	Outcome    string          `json:"outcome"`
	AttemptLog []struct {
		At      int64  `json:"at"`
		Outcome string `json:"outcome"`
		Fault   string `json:"fault"`
		Key     string `json:"key"`
	} `json:"attemptLog"`
}

// report11 is the part of the report file these tests read.
type report11 struct {
	Transport struct{ Agent, Upstream string } `json:"transport"`
	Report    struct {
		Verdict    string         `json:"verdict"`
		Operations []operationFor `json:"operations"`
		KeySummary []struct {
			Key string `json:"key"`
		} `json:"keySummary"`
	} `json:"report"`
}

func parseReport11(t *testing.T, raw []byte) report11 {
	t.Helper()
	var r report11
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("report does not parse: %v\n%s", err, raw)
	}
	if len(r.Report.Operations) != 1 {
		t.Fatalf("operations %+v, want one", r.Report.Operations)
	}
	return r
}

// TestReportArgumentsAndAttemptLog: an F1 duplicate shows what ran twice
// (the first attempt's arguments, big integer intact) and when (two
// executed attempts, the first one answered with the injected timeout).
func TestReportArgumentsAndAttemptLog(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := startSession(t, "--scenario", "F1")
	const args = `{"room":"12","date":"2026-11-03","amount":123456789012345678901234567890,"idempotency_key":"k-1"}`
	if got := p.call("create_booking", args); !got.IsError {
		t.Fatalf("first write: %+v, want the injected timeout", got)
	}
	p.call("create_booking", `{"room":"12","date":"2026-11-03","amount":123456789012345678901234567890,"idempotency_key":"k-2"}`)
	md := p.call("cuonztech__get_report", `{}`).text()
	if p.finish() != 0 {
		t.Fatalf("exit status; stderr:\n%s", p.stderr)
	}
	raw, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	r := parseReport11(t, raw)
	op := r.Report.Operations[0]
	if string(op.Arguments) != args || !bytes.Contains(raw, []byte(`"amount":123456789012345678901234567890`)) {
		t.Errorf("arguments %s, want %s", op.Arguments, args)
	}
	l := op.AttemptLog
	if op.Outcome != "DUPLICATE_EXECUTION" || len(l) != 2 ||
		l[0].Outcome != "executed" || l[0].Fault != "timeout" || l[0].Key != "k-1" ||
		l[1].Outcome != "executed" || l[1].Fault != "" || l[1].Key != "k-2" || l[1].At < l[0].At {
		t.Errorf("outcome %s, attemptLog %+v", op.Outcome, l)
	}
	if r.Transport.Agent != "stdio" || r.Transport.Upstream != "stdio" {
		t.Errorf("transport %+v", r.Transport)
	}
	for _, want := range []string{"- arguments: `" + args + "`", "ms executed (agent saw timeout, key `k-1`) →"} {
		if !strings.Contains(md, want) {
			t.Errorf("get_report markdown lacks %q:\n%s", want, md)
		}
	}
}

// TestReportRedactArguments: with --redact-arguments no argument value —
// key values included — reaches the report file, the audit tools or
// stderr; the arguments show hashes under their member names.
func TestReportRedactArguments(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs processes")
	}
	t.Parallel()
	p := startSession(t, "--scenario", "F1", "--redact-arguments")
	const args = `{"room":"SECRET-room-4711","date":"2026-11-03","idempotency_key":"SECRET-key-0815"}`
	p.call("create_booking", args)
	p.call("create_booking", args)
	mdReport := p.call("cuonztech__get_report", `{}`).text()
	jsonReport := p.call("cuonztech__get_report", `{"format":"json"}`).text()
	score := p.call("cuonztech__get_score", `{}`).text()
	if p.finish() != 0 {
		t.Fatalf("exit status; stderr:\n%s", p.stderr)
	}
	raw, err := os.ReadFile(p.report)
	if err != nil {
		t.Fatal(err)
	}
	for what, text := range map[string]string{"report file": string(raw), "stderr": p.stderr.String(),
		"get_report markdown": mdReport, "get_report json": jsonReport, "get_score": score} {
		for _, secret := range []string{"SECRET", "room-4711", "key-0815", "2026-11-03"} {
			if strings.Contains(text, secret) {
				t.Errorf("%s contains %q:\n%s", what, secret, text)
			}
		}
	}
	hash := func(text string) string {
		sum := sha256.Sum256([]byte(text))
		return "sha256:" + hex.EncodeToString(sum[:])
	}
	r := parseReport11(t, raw)
	op, key := r.Report.Operations[0], hash(`"SECRET-key-0815"`)
	want := `{"room":"` + hash(`"SECRET-room-4711"`) + `","date":"` + hash(`"2026-11-03"`) + `","idempotency_key":"` + key + `"}`
	if string(op.Arguments) != want {
		t.Errorf("arguments %s\nwant %s", op.Arguments, want)
	}
	if len(op.Keys) != 1 || op.Keys[0] != key || len(op.AttemptLog) != 2 || op.AttemptLog[1].Key != key ||
		len(r.Report.KeySummary) != 1 || r.Report.KeySummary[0].Key != key {
		t.Errorf("keys %v, attemptLog %+v, keySummary %+v; want %s", op.Keys, op.AttemptLog, r.Report.KeySummary, key)
	}
	if r.Report.Verdict != "FAIL" || op.Outcome != "DUPLICATE_EXECUTION" {
		t.Errorf("redaction changed the judgement: %s %s", r.Report.Verdict, op.Outcome)
	}
	p.checkExecutions(fileReportOf(t, raw))
}

func fileReportOf(t *testing.T, raw []byte) fileReport {
	t.Helper()
	var r fileReport
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatal(err)
	}
	return r
}
