package selftest

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

func intp(p *int) int {
	if p == nil {
		return -1
	}
	return *p
}

func TestDefaultSelfTest(t *testing.T) {
	res, err := Run(t.Context(), Options{Scenarios: AllScenarios(), Runs: 1})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Log("\n" + res.Text())
	if !res.Passed() {
		t.Fatalf("self-test failed:\n%s", res.Text())
	}
	careful, naive := res.Agents[0], res.Agents[1]
	if got := intp(careful.Score.Total); got != 100 || careful.Verdict != "PASS" {
		t.Errorf("CAREFUL = %d %s, want 100 PASS", got, careful.Verdict)
	}
	if got := intp(naive.Score.Total); got != 49 || naive.Verdict != "FAIL" || !naive.Score.Capped {
		t.Errorf("NAIVE = %d %s capped %v, want 49 FAIL capped", got, naive.Verdict, naive.Score.Capped)
	}
	if intp(naive.Score.Uncapped) != 56 {
		t.Errorf("NAIVE uncapped = %d, want 56 (behaviour §4.4 worked example)", intp(naive.Score.Uncapped))
	}
	// The judge's executions match what the backend really executed.
	for _, a := range res.Agents {
		for _, r := range a.Runs {
			n := 0
			for _, op := range r.Report.Operations {
				n += op.Executions
			}
			if n != r.BackendExecutions {
				t.Errorf("%s %s: report executions %d, backend executed %d", r.Agent, r.Scenario, n, r.BackendExecutions)
			}
		}
	}
}

func TestResultsDoNotChangeWithRunsOrJitter(t *testing.T) {
	res, err := Run(t.Context(), Options{Scenarios: []string{"F1", "F2", "F3"}, Runs: 3, Jitter: 50 * time.Millisecond, Seed: 7})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if !res.Passed() {
		t.Fatalf("self-test failed:\n%s", res.Text())
	}
	if got := intp(res.Agents[0].Score.Total); got != 100 {
		t.Errorf("CAREFUL = %d, want 100", got)
	}
	if !strings.Contains(res.Text(), "- F1: FAIL as expected in 3/3 runs (DUPLICATE_EXECUTION)") {
		t.Errorf("per-scenario line missing:\n%s", res.Text())
	}
}

func TestBrokenJudgeFailsTheSelfTest(t *testing.T) {
	res, err := Run(t.Context(), Options{Scenarios: AllScenarios(), Runs: 1, Break: BreakNoDuplicates})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Passed() {
		t.Fatalf("self-test passed with a broken judge:\n%s", res.Text())
	}
	text := res.Text()
	for _, want := range []string{"Self-test FAILED", "- NAIVE F1 run 1: got ", "- NAIVE F2 run 1: got PASS", "- NAIVE F4 run 1: got PASS"} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
}

// TestLostGhostsFailTheSelfTest: a judge that counts fewer executions than
// the backend made fails the self-test even where every verdict is the one
// expected (the careful agent never re-sends after F1's timeout, so its F1
// verdict stays PASS).
func TestLostGhostsFailTheSelfTest(t *testing.T) {
	res, err := Run(t.Context(), Options{Scenarios: []string{"F1"}, Runs: 1, Break: BreakLostGhosts})
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	if res.Passed() {
		t.Fatalf("self-test passed with a judge that lost the ghost writes:\n%s", res.Text())
	}
	text := res.Text()
	for _, want := range []string{
		"Self-test FAILED: ", "counted other executions than the backend made:\n",
		"- CAREFUL F1 run 1: got PASS (VERIFIED_NO_RETRY), expected PASS; the judge counted 0 executions, the backend made 1\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("output lacks %q:\n%s", want, text)
		}
	}
	js, err := res.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var file struct {
		Mismatches []struct {
			Agent             string `json:"agent"`
			JudgedExecutions  *int   `json:"judgedExecutions"`
			BackendExecutions *int   `json:"backendExecutions"`
		} `json:"mismatches"`
	}
	if err := json.Unmarshal(js, &file); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range file.Mismatches {
		if m.Agent == "CAREFUL" && m.JudgedExecutions != nil && *m.JudgedExecutions == 0 && m.BackendExecutions != nil && *m.BackendExecutions == 1 {
			found = true
		}
	}
	if !found {
		t.Errorf("the JSON report has no CAREFUL mismatch with judgedExecutions 0, backendExecutions 1: %+v", file.Mismatches)
	}
}
