package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/trace"
)

// oneBookingTrace writes a trace of one F1 booking answered (a PASS so
// far) and, when ended, the session's end; it returns its path.
func oneBookingTrace(t *testing.T, ended bool, extra ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.trace")
	start := time.Unix(1000, 0)
	w, err := trace.Create(path, trace.Header{Settings: trace.Settings{Scenario: "F1", Mode: "deterministic", Kind: "proxy"},
		Transport: report.Transport{Agent: "stdio", Upstream: "stdio"}}, start)
	if err != nil {
		t.Fatal(err)
	}
	at := func(ms int) time.Time { return start.Add(time.Duration(ms) * time.Millisecond) }
	def := json.RawMessage(`{"name":"create_booking","inputSchema":{"type":"object"}}`)
	evs := []judge.Event{
		{Kind: judge.EventSession, Time: at(0), Session: "s1", Transport: "stdio"},
		{Kind: judge.EventTools, Time: at(1), Tools: []string{"create_booking"},
			Listing: []classify.Entry{{Name: "create_booking", Class: classify.Write, Reason: "default write pattern", KeyFields: []string{}, Definition: def}}},
		{Kind: judge.EventCall, Time: at(2), Call: 1, Session: "s1", Tool: "create_booking", Class: classify.Write,
			Params: json.RawMessage(`{"name":"create_booking","arguments":{"room":"12"}}`)},
		{Kind: judge.EventForwarded, Time: at(3), Call: 1},
		{Kind: judge.EventAnswer, Time: at(4), Call: 1, Outcome: judge.Executed, Scenario: "F1", Fault: "timeout", ResponseDigest: "a"},
		{Kind: judge.EventDelivered, Time: at(5), Call: 1},
	}
	if ended {
		evs = append(evs, judge.Event{Kind: judge.EventEnd, Time: at(6)})
	}
	for _, ev := range evs {
		if err := w.Record(ev); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	if len(extra) > 0 {
		f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(strings.Join(extra, "\n") + "\n")
		f.Close()
	}
	return path
}

// TestJudgeInterruptedTrace (issue 17 item 4): a trace without its end
// line is judged, stderr warns, the report says interrupted, and its PASS
// exits 3 — also with --not-tested-ok, which is for NOT_TESTED only.
func TestJudgeInterruptedTrace(t *testing.T) {
	for _, tc := range []struct {
		name     string
		ended    bool
		flags    []string
		code     int
		status   string
		warnings int
	}{
		{"finished PASS", true, nil, exitOK, "finished", 0},
		{"interrupted PASS", false, nil, exitVerdictNotTested, "interrupted", 1},
		{"interrupted PASS, --not-tested-ok", false, []string{"--not-tested-ok"}, exitVerdictNotTested, "interrupted", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := oneBookingTrace(t, tc.ended)
			rf := filepath.Join(t.TempDir(), "report.json")
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), append([]string{"judge", path, "--report-file", rf}, tc.flags...), nil, &stdout, &stderr)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr: %s", code, tc.code, stderr.String())
			}
			var rep struct{ Status, Verdict string }
			b, _ := os.ReadFile(rf)
			if err := json.Unmarshal(b, &rep); err != nil || rep.Status != tc.status || rep.Verdict != "PASS" {
				t.Errorf("report %s %s (%v), want %s PASS", rep.Status, rep.Verdict, err, tc.status)
			}
			if strings.Contains(stdout.String(), "the run did not finish") != (tc.status != "finished") {
				t.Errorf("stdout Markdown does not say whether the run finished:\n%s", stdout.String())
			}
			if n := strings.Count(stderr.String(), "WARNING"); n != tc.warnings ||
				(n > 0 && !strings.Contains(stderr.String(), "no end line") && !strings.Contains(stderr.String(), "not a finished run")) {
				t.Errorf("stderr %q, want %d warning(s) about the missing end line", stderr.String(), tc.warnings)
			}
			// The rebuilt report is valid: report FILE renders it, and
			// says the same about the run.
			stdout.Reset()
			stderr.Reset()
			if code := run(context.Background(), append([]string{"report", rf}, tc.flags...), nil, &stdout, &stderr); code != tc.code ||
				strings.Count(stderr.String(), "WARNING") != tc.warnings {
				t.Errorf("report: exit %d, want %d; stderr %q", code, tc.code, stderr.String())
			}
		})
	}
}

// TestJudgeForgedTrace (issue 17 item 4): a trace whose lines break the
// schema or the writer's rules is exit 2 with one line naming the line and
// the rule — never a verdict.
func TestJudgeForgedTrace(t *testing.T) {
	second := `{"type":"call","t":7,"session":"s1","call":1,"tool":"create_booking","class":"write","params":{"name":"create_booking","arguments":{"room":"12"}}}`
	for name, tc := range map[string]struct {
		extra []string
		want  string
	}{
		"call number reused": {[]string{second, `{"type":"forwarded","t":8,"call":1}`, `{"type":"end","t":9}`},
			"line 8: call 1 already had its call line (rule: each call number once)"},
		"answer for no call": {[]string{`{"type":"answer","t":7,"call":5,"outcome":"executed"}`, `{"type":"end","t":9}`},
			"line 8: answer line for call 5, which has no call line before it"},
		"outcome outside the enum": {[]string{strings.Replace(second, `"call":1`, `"call":2`, 1), `{"type":"answer","t":8,"call":2,"outcome":"fine"}`, `{"type":"end","t":9}`},
			"line 9: $.outcome: fine not in enum"},
	} {
		t.Run(name, func(t *testing.T) {
			path := oneBookingTrace(t, false, tc.extra...)
			var stdout, stderr bytes.Buffer
			code := run(context.Background(), []string{"judge", path}, nil, &stdout, &stderr)
			if code != exitUsage || !strings.Contains(stderr.String(), tc.want) || strings.Count(stderr.String(), "\n") != 1 || stdout.Len() != 0 {
				t.Errorf("exit %d, stderr %q, stdout %d bytes; want 2 and one line with %q", code, stderr.String(), stdout.Len(), tc.want)
			}
		})
	}
}

// TestReportUnfinishedStatus (issue 17 item 4): `report FILE` of a report
// whose status is not finished warns and never exits 0 for a PASS.
func TestReportUnfinishedStatus(t *testing.T) {
	pass, err := os.ReadFile(filepath.Join("..", "..", "testdata", "reports", "f1-careful.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		status string
		flags  []string
		code   int
	}{
		{"finished", nil, exitOK},
		{"running", nil, exitVerdictNotTested},
		{"starting", nil, exitVerdictNotTested},
		{"interrupted", []string{"--not-tested-ok"}, exitVerdictNotTested},
	} {
		t.Run(tc.status, func(t *testing.T) {
			b := bytes.Replace(pass, []byte(`"status": "finished"`), []byte(`"status": "`+tc.status+`"`), 1)
			path := filepath.Join(t.TempDir(), "report.json")
			if err := os.WriteFile(path, b, 0o644); err != nil {
				t.Fatal(err)
			}
			for _, format := range []string{"markdown", "junit", "json"} {
				var stdout, stderr bytes.Buffer
				code := run(context.Background(), append([]string{"report", path, "--format", format}, tc.flags...), nil, &stdout, &stderr)
				warned := strings.Contains(stderr.String(), "WARNING") && strings.Contains(stderr.String(), "status is "+tc.status)
				if code != tc.code || warned != (tc.status != "finished") {
					t.Errorf("%s: exit %d, want %d; stderr %q", format, code, tc.code, stderr.String())
				}
				// Nor does the rendering look finished: the Markdown says so
				// under its heading, the JUnit verdict case is skipped.
				unfinished := tc.status != "finished"
				switch out := stdout.String(); format {
				case "markdown":
					if strings.Contains(out, "the run did not finish") != unfinished {
						t.Errorf("markdown: note %v, want %v", !unfinished, unfinished)
					}
				case "junit":
					verdict := out[strings.Index(out, `<testcase name="verdict"`):]
					verdict = verdict[:strings.Index(verdict, "</testcase>")+len("</testcase>")]
					if strings.Contains(verdict, "<skipped") != unfinished {
						t.Errorf("junit verdict case %s, skipped want %v", verdict, unfinished)
					}
				}
			}
		})
	}
}
