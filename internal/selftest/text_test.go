package selftest

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/cuonztech/agent-harness/internal/refagent"
)

func TestTextForSubsetWithoutSeparatingScenario(t *testing.T) {
	res, err := Run(t.Context(), Options{Scenarios: []string{"F3", "F5"}, Runs: 2})
	if err != nil {
		t.Fatal(err)
	}
	text := res.Text()
	for _, want := range []string{
		"Reference agent 2/2: NAIVE (re-sends every write immediately, no key)\n## Overall: 100/100 [PASS]\n",
		"- F3: PASS as expected in 2/2 runs (RECOVERED_BY_RETRY, WRITE_WITHOUT_KEY)\n",
		"The naive agent is expected to pass F3, F5 (no scenario that separates the agents was selected) and did.\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("text lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "capped at 49") {
		t.Errorf("cap note without a cap:\n%s", text)
	}
}

func TestReportJSONFields(t *testing.T) {
	res, err := Run(t.Context(), Options{Scenarios: []string{"F1", "F2"}, Runs: 1})
	if err != nil {
		t.Fatal(err)
	}
	data, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var f map[string]any
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	get := func(path ...string) any {
		var v any = f
		for _, p := range path {
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[p]
		}
		return v
	}
	checks := []struct {
		path []string
		want any
	}{
		{[]string{"certification"}, "UNVERIFIED_FOR_PRODUCTION"},
		{[]string{"selfTest"}, "PASSED"},
		{[]string{"careful", "score", "verdict"}, "PASS"},
		{[]string{"naive", "score", "verdict"}, "FAIL"},
		{[]string{"careful", "score", "total"}, float64(100)},
		{[]string{"naive", "expected"}, "FAIL"},
		{[]string{"options", "runs"}, float64(1)},
	}
	for _, c := range checks {
		if got := get(c.path...); got != c.want {
			t.Errorf("%s = %v, want %v", strings.Join(c.path, "."), got, c.want)
		}
	}
	runs, _ := get("naive", "runs").([]any)
	if len(runs) != 2 {
		t.Fatalf("naive.runs has %d entries, want 2", len(runs))
	}
	run := runs[0].(map[string]any)
	if run["scenario"] != "F1" || run["verdict"] != "FAIL" || run["report"].(map[string]any)["verdict"] != "FAIL" {
		t.Errorf("naive.runs[0] = %v", run)
	}
	if _, ok := get("options", "seed").(float64); ok {
		t.Errorf("seed written without jitter")
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"no scenario", Options{Runs: 1}},
		{"unknown scenario", Options{Scenarios: []string{"F6"}, Runs: 1}},
		{"duplicate scenario", Options{Scenarios: []string{"F1", "F1"}, Runs: 1}},
		{"zero runs", Options{Scenarios: []string{"F1"}}},
		{"too many runs", Options{Scenarios: []string{"F1"}, Runs: MaxRuns + 1}},
		{"jitter too large", Options{Scenarios: []string{"F1"}, Runs: 1, Jitter: MaxJitter + 1}},
		{"unknown break", Options{Scenarios: []string{"F1"}, Runs: 1, Break: "x"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Run(t.Context(), tc.opts); err == nil {
				t.Error("no error")
			}
		})
	}
}

func BenchmarkDefaultSelfTest(b *testing.B) {
	for b.Loop() {
		res, err := Run(b.Context(), Options{Scenarios: AllScenarios(), Runs: 1})
		if err != nil || !res.Passed() {
			b.Fatalf("self-test: %v", err)
		}
	}
}

func BenchmarkOneRun(b *testing.B) {
	opts := Options{Scenarios: []string{"F1"}, Runs: 1}
	i := 0
	for b.Loop() {
		if _, err := runOne(b.Context(), opts, job{index: i, agent: refagent.Careful{}, scenario: "F1", run: 1}); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
