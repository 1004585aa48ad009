package reportfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplaced: Replaced is false before the first write and after this
// Writer's own writes, true once another writer (another proxy's Writer on
// the same file) has written since, false again after this one writes; a
// removed target is not replaced.
func TestReplaced(t *testing.T) {
	path := filepath.Join(t.TempDir(), "report.json")
	mine, err := New(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	other, err := New(path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if mine.Replaced() {
		t.Error("replaced before the first write")
	}
	must := func(w *Writer, s string) {
		t.Helper()
		if err := w.Write([]byte(s)); err != nil {
			t.Fatal(err)
		}
	}
	must(mine, `{"a":1}`)
	if mine.Replaced() {
		t.Error("replaced after its own write")
	}
	must(other, `{"b":2}`)
	if !mine.Replaced() {
		t.Error("not replaced after another writer's write")
	}
	must(mine, `{"a":2}`)
	if mine.Replaced() {
		t.Error("replaced after writing again")
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if mine.Replaced() {
		t.Error("a removed file counts as replaced")
	}
}
