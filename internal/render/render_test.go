package render

import (
	"bytes"
	"encoding/xml"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/junit"
	"github.com/cuonztech/agent-harness/internal/report"
)

var update = flag.Bool("update", false, "rewrite the golden files in internal/render/testdata")

// TestGolden renders every golden report file of testdata/reports as
// Markdown and JUnit and compares with the golden renderings (rewrite
// with -update).
func TestGolden(t *testing.T) {
	files, err := filepath.Glob("../../testdata/reports/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden reports: %v", err)
	}
	for _, path := range files {
		name := strings.TrimSuffix(filepath.Base(path), ".json")
		t.Run(name, func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if k := report.Detect(data); k != report.KindRun {
				t.Fatalf("kind %q", k)
			}
			f, err := report.ParseRun(data)
			if err != nil {
				t.Fatal(err)
			}
			golden(t, filepath.Join("testdata", name+".md"), []byte(markdown(f)))
			out := JUnit(f)
			golden(t, filepath.Join("testdata", name+".junit.xml"), out)
			checkJUnit(t, out, f)
		})
	}
}

func golden(t *testing.T, path string, got []byte) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./internal/render -update)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (run go test ./internal/render -update and check the diff):\n%s", path, got)
	}
}

// checkJUnit checks the JUnit shape: one suite named after the scenario,
// the verdict case first, one case per operation, counts consistent with
// the cases, FAIL a failure and NOT_TESTED a skip.
func checkJUnit(t *testing.T, out []byte, f *report.RunFile) {
	t.Helper()
	var doc junit.Suites
	if err := xml.Unmarshal(out, &doc); err != nil {
		t.Fatalf("not XML: %v", err)
	}
	if doc.XMLName.Local != "testsuites" || len(doc.Suites) != 1 {
		t.Fatalf("shape %+v", doc)
	}
	s := doc.Suites[0]
	if s.Name != f.ScenarioName() || len(s.Cases) != 1+len(f.Report.Operations) || s.Cases[0].Name != "verdict" {
		t.Errorf("suite %q with %d cases", s.Name, len(s.Cases))
	}
	fails, skips := 0, 0
	for _, c := range s.Cases {
		if c.Failure != nil {
			fails++
		}
		if c.Skipped != nil {
			skips++
		}
		if c.Failure != nil && c.Skipped != nil {
			t.Errorf("case %s both failed and skipped", c.Name)
		}
	}
	if s.Tests != len(s.Cases) || s.Failures != fails || s.Skipped != skips || doc.Tests != s.Tests || doc.Failures != fails || doc.Skipped != skips {
		t.Errorf("counts %d/%d/%d, cases %d/%d/%d", s.Tests, s.Failures, s.Skipped, len(s.Cases), fails, skips)
	}
	v := s.Cases[0]
	if (f.Verdict == "FAIL") != (v.Failure != nil) || (f.Verdict == "NOT_TESTED") != (v.Skipped != nil) {
		t.Errorf("verdict %s rendered as %+v", f.Verdict, v)
	}
}

// FuzzParseRun: any input is refused or parsed and rendered, without a
// panic.
func FuzzParseRun(f *testing.F) {
	for _, name := range []string{"f1-naive", "not-tested-in-flight", "startup-failed"} {
		data, err := os.ReadFile("../../testdata/reports/" + name + ".json")
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"report":{},"score":{},"harnessVersion":"x"}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if report.Detect(data) != report.KindRun {
			return
		}
		r, err := report.ParseRun(data)
		if err != nil {
			return
		}
		markdown(r)
		if err := xml.Unmarshal(JUnit(r), new(junit.Suites)); err != nil {
			t.Errorf("JUnit not XML: %v", err)
		}
	})
}

// markdown renders f as `agent-harness report` does.
func markdown(f *report.RunFile) string {
	return report.WithStatus(report.Markdown(f.Report, f.Score, f.Patches), f.Status)
}
