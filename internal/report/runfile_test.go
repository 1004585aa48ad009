package report

import (
	"os"
	"strings"
	"testing"
)

func TestParseRunRejects(t *testing.T) {
	data, err := os.ReadFile("../../testdata/reports/f1-naive.json")
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range map[string]string{
		"wrong verdict": strings.Replace(string(data), `"verdict": "FAIL"`, `"verdict": "MAYBE"`, 1),
		"trailing data": string(data) + "{}",
		"not json":      "{",
	} {
		if _, err := ParseRun([]byte(in)); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v", name, err)
		}
	}
}
