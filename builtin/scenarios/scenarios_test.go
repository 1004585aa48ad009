package scenarios_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/builtin/scenarios"
)

func TestAll(t *testing.T) {
	ids := ""
	for _, s := range scenarios.All() {
		ids += s.ID + " "
		if (s.ID == "F4") != (s.Text == "") {
			t.Errorf("%s: text %q", s.ID, s.Text)
		}
	}
	if ids != "F1 F2 F3 F4 F5 chaos " {
		t.Errorf("scenarios %q", ids)
	}
}

func TestRateLimitText(t *testing.T) {
	if got := scenarios.RateLimitText(5 * time.Second); !strings.Contains(got, "Retry after 5 seconds.") {
		t.Errorf("F2 text %q", got)
	}
}

func ExampleRateLimitText() {
	fmt.Println(scenarios.RateLimitText(30 * time.Second))
	// Output: Error: HTTP 429 Too Many Requests: rate limit exceeded. Retry after 30 seconds.
}
