package judge

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden report files in testdata/reports")

const goldenDir = "../../testdata/reports"

var toolTable = json.RawMessage(`[{"name":"create_booking","class":"write","reason":"default write pattern","keyFields":["idempotency_key"]},{"name":"get_booking","class":"read","reason":"read prefix","keyFields":[]}]`)

type goldenCase struct {
	name  string
	cfg   Config
	build func(s *sess)
	meta  report.FileMeta
}

func goldenCases() []goldenCase {
	fin := report.FileMeta{Status: "finished", ToolClassification: toolTable}
	return []goldenCase{
		{name: "starting", meta: report.FileMeta{Status: "starting"}, cfg: Config{Scenario: "F1"}, build: func(*sess) {}},
		{name: "startup-failed", meta: report.FileMeta{Status: "failed", StartupError: `starting upstream "node": exec: "node": executable file not found in $PATH`},
			cfg: Config{Scenario: "F1"}, build: func(*sess) {}},
		{name: "f1-naive", cfg: Config{Scenario: "F1"}, meta: fin, build: func(s *sess) { s.evs = naive("F1").evs }},
		{name: "f1-careful", cfg: Config{Scenario: "F1"}, meta: fin, build: func(s *sess) {
			s.f1(s.writeK("create_booking", `{"guest":"Ada","date":"2026-11-03","idempotency_key":"b-1"}`))
			s.read()
			s.end()
		}},
		{name: "f1-redacted", cfg: Config{Scenario: "F1", RedactArguments: true}, meta: fin, build: func(s *sess) {
			s.f1(s.writeK("create_booking", `{"guest":{"name":"Ada","vip":true,"nights":2,"note":null},"date":"2026-11-03","idempotency_key":"b-1"}`))
			s.wait(5)
			s.ok(s.writeK("create_booking", `{"guest":{"name":"Ada","vip":true,"nights":2,"note":null},"date":"2026-11-03","idempotency_key":"b-2"}`))
			s.end()
		}},
		{name: "f1-silent", cfg: Config{Scenario: "F1"}, meta: fin, build: func(s *sess) {
			s.f1(s.writeK("create_booking", `{"guest":"Ada","date":"2026-11-03"}`))
			s.end()
		}},
		{name: "http-two-sessions", cfg: Config{Scenario: "F1"}, meta: report.FileMeta{Status: "finished", ToolClassification: toolTable,
			Transport: report.Transport{Agent: "http", Upstream: "http"}}, build: func(s *sess) {
			// One backend behind two agent sessions: a write executed by
			// both is executed twice (behaviour §8).
			s.emit(Event{Kind: EventSession, Session: "s1", Transport: "http"})
			s.emit(Event{Kind: EventSession, Session: "s2", Transport: "http"})
			a := s.write("create_booking", booking)
			s.evs[len(s.evs)-1].Session = "s1"
			s.forwarded(a)
			s.answer(a, Executed, "F1", "timeout")
			s.wait(5)
			b := s.write("create_booking", booking)
			s.evs[len(s.evs)-1].Session = "s2"
			s.ok(b)
			s.end()
		}},
		{name: "f1-parallel", cfg: Config{Scenario: "F1"}, meta: fin, build: func(s *sess) {
			a := s.write("create_booking", booking)
			b := s.write("create_booking", booking)
			s.forwarded(a)
			s.forwarded(b)
			s.answer(a, Executed, "F1", "timeout")
			s.answer(b, Executed, "", "")
			s.end()
		}},
		{name: "ghost-partial-success", cfg: Config{Scenario: "partial_success"}, meta: fin, build: func(s *sess) {
			s.partial(s.write("create_booking", booking))
			s.wait(5)
			s.ok(s.write("create_booking", booking))
			s.end()
		}},
		{name: "f2-early", cfg: Config{Scenario: "F2"}, meta: fin, build: func(s *sess) { s.evs = naive("F2").evs }},
		{name: "f2-waits", cfg: Config{Scenario: "F2"}, meta: fin, build: func(s *sess) {
			s.f2(s.write("create_booking", booking), 60000)
			s.wait(100)
			s.ok(s.write("create_booking", `{"guest":"Bob"}`))
			s.wait(61000)
			s.ok(s.write("create_booking", booking))
			s.end()
		}},
		{name: "f3-naive", cfg: Config{Scenario: "F3"}, meta: fin, build: func(s *sess) { s.evs = naive("F3").evs }},
		{name: "f4-naive", cfg: Config{Scenario: "F4"}, meta: fin, build: func(s *sess) { s.evs = naive("F4").evs }},
		{name: "f5-abandoned", cfg: Config{Scenario: "F5"}, meta: fin, build: func(s *sess) {
			s.f5(s.write("create_booking", `{"guest":"Ada","idempotency_key":"k1"}`))
			s.end()
		}},
		{name: "not-tested-near-duplicate", cfg: Config{Scenario: "F1"}, meta: fin, build: func(s *sess) {
			s.f1(s.write("create_booking", `{"guest":"Ada","amount":129,"idempotency_key":"k1"}`))
			s.ok(s.write("create_booking", `{"guest":"ADA","amount":"129.00","idempotency_key":"k2"}`))
			s.end()
		}},
		{name: "not-tested-in-flight", cfg: Config{Scenario: "F1"}, meta: report.FileMeta{Status: "running", ToolClassification: toolTable}, build: func(s *sess) {
			s.forwarded(s.write("create_booking", booking))
		}},
		{name: "baseline-observations", meta: fin, build: func(s *sess) {
			s.ok(s.writeK("create_booking", `{"guest":"Ada"}`))
			s.rejected(s.write("cancel_booking", `{"id":"x"}`))
			s.call("sync_ledger", classify.Unclassified, `{"a":1}`)
			s.call("sync_ledger", classify.Unclassified, `{"a":1}`)
			s.answer(s.call("create_ghost", classify.Unknown, `{}`), UnknownTool, "", "")
			s.pluginFailure("dates", "deadline exceeded after 100ms")
			s.end()
		}},
		{name: "plugin-disabled", cfg: Config{Scenario: "F1"}, meta: report.FileMeta{Status: "finished", ToolClassification: toolTable,
			Plugins: json.RawMessage(`[{"name":"verbs","version":"1.0.0","status":"disabled","failures":2,"detail":"classify sync_ledger: deadline of 100ms exceeded"}]`)},
			build: func(s *sess) {
				s.pluginFailure("verbs", "classify sync_ledger: deadline of 100ms exceeded")
				s.pluginFailure("verbs", "classify sync_ledger: deadline of 100ms exceeded")
				s.pluginDisabled("verbs", "disabled after 2 consecutive failures")
				s.f1(s.write("create_booking", booking))
				s.read()
				s.end()
			}},
		{name: "chaos", cfg: Config{Scenario: "chaos"},
			meta: report.FileMeta{Status: "finished", Mode: "chaos", Chaos: &report.ChaosInfo{Seed: 42, ErrorRate: 0.3}, ToolClassification: toolTable,
				Plugins: json.RawMessage(`[{"name":"dates","version":"1.0.0","status":"ok","failures":0,"detail":""}]`)},
			build: func(s *sess) {
				s.chaos(s.call("get_booking", classify.Read, `{}`))
				s.chaos(s.write("create_booking", booking))
				s.chaos(s.write("create_booking", booking))
				s.ok(s.write("create_booking", booking))
				s.end()
			}},
	}
}

// TestGoldenReports compares report files with testdata/reports/*.json
// (rewrite with -update) and validates each against the schema.
func TestGoldenReports(t *testing.T) {
	v := newSchemaValidator(t, report.Schema)
	for _, tc := range goldenCases() {
		t.Run(tc.name, func(t *testing.T) {
			s := newSess()
			tc.build(s)
			got := s.judge(tc.cfg).AppendFile(nil, tc.meta)
			if errs := v.validate(got); len(errs) != 0 {
				t.Fatalf("schema violations: %v\n%s", errs, got)
			}
			var ind bytes.Buffer
			if err := json.Indent(&ind, got, "", "  "); err != nil {
				t.Fatal(err)
			}
			ind.WriteByte('\n')
			path := filepath.Join(goldenDir, tc.name+".json")
			if *update {
				if err := os.MkdirAll(goldenDir, 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(path, ind.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test ./internal/judge -run TestGoldenReports -update)", err)
			}
			if !bytes.Equal(ind.Bytes(), want) {
				t.Errorf("%s differs from the golden file (-want +got):\n%s", path, lineDiff(string(want), ind.String()))
			}
		})
	}
}

// TestGoldenFilesValid validates every committed golden file, also ones no
// test case produces any more.
func TestGoldenFilesValid(t *testing.T) {
	v := newSchemaValidator(t, report.Schema)
	files, _ := filepath.Glob(filepath.Join(goldenDir, "*.json"))
	if len(files) == 0 {
		t.Fatal("no golden files")
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if errs := v.validate(b); len(errs) != 0 {
			t.Errorf("%s: %v", f, errs)
		}
	}
}

func lineDiff(want, got string) string {
	wl, gl := bytes.Split([]byte(want), []byte("\n")), bytes.Split([]byte(got), []byte("\n"))
	var out bytes.Buffer
	for i := 0; i < max(len(wl), len(gl)); i++ {
		var w, g []byte
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if !bytes.Equal(w, g) {
			out.WriteString("-" + string(w) + "\n+" + string(g) + "\n")
		}
	}
	return out.String()
}
