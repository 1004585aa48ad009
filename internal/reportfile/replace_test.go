package reportfile

import (
	"os"
	"path/filepath"
	"testing"
)

// TestReplace: the file holds the new bytes and no temporary file is left
// beside it; a missing directory is an error (no parents are made).
func TestReplace(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "plan.json")
	for _, data := range []string{"old\n", "new\n"} {
		if err := Replace(path, []byte(data)); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(path); string(got) != data {
			t.Fatalf("file = %q, want %q", got, data)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("directory holds %d entries, want only plan.json", len(entries))
	}
	if err := Replace(filepath.Join(dir, "no", "x.json"), nil); err == nil {
		t.Error("no error for a missing directory")
	}
}
