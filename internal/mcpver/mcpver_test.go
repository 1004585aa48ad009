package mcpver

import "testing"

func TestComplete(t *testing.T) {
	for _, tc := range []struct{ in, version, want string }{
		{`{"content":[]}`, "2026-07-28", `{"content":[],"resultType":"complete"}`},
		{`{}`, "2027-01-01", `{"resultType":"complete"}`},
		{`{"content":[],"resultType":"input_required"}`, "2026-07-28", `{"content":[],"resultType":"input_required"}`},
		{`{"content":[]}`, "2025-11-25", `{"content":[]}`},
		{`{"content":[]}`, "", `{"content":[]}`},
		{`{"content":[]}`, "latest", `{"content":[]}`},
	} {
		if got := string(Complete([]byte(tc.in), tc.version)); got != tc.want {
			t.Errorf("Complete(%s, %q) = %s, want %s", tc.in, tc.version, got, tc.want)
		}
	}
}
