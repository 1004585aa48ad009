package mcpschema

import "testing"

// TestCheckSeesResultType: the vendored schemas are read and really
// checked: a CallToolResult without resultType is valid before 2026-07-28
// and invalid from it on; one with it is valid in every revision; one
// without content is invalid in every revision.
func TestCheckSeesResultType(t *testing.T) {
	plain := []byte(`{"content":[{"type":"text","text":"x"}],"isError":true}`)
	typed := []byte(`{"content":[{"type":"text","text":"x"}],"isError":true,"resultType":"complete"}`)
	empty := []byte(`{"isError":true,"resultType":"complete"}`)
	for _, rev := range Revisions {
		errs := Check(rev, "CallToolResult", plain)
		if want := rev >= "2026-07-28"; (len(errs) > 0) != want {
			t.Errorf("%s: no resultType: violations %q, want some: %t", rev, errs, want)
		}
		if errs := Check(rev, "CallToolResult", typed); len(errs) > 0 {
			t.Errorf("%s: with resultType: %q", rev, errs)
		}
		if errs := Check(rev, "CallToolResult", empty); len(errs) == 0 {
			t.Errorf("%s: a result without content passed", rev)
		}
	}
}
