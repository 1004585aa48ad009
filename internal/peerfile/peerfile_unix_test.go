//go:build unix

package peerfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "claim.json")
	if err := os.WriteFile(ok, []byte(`{"claim":"FAILED"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(fifo, link); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(ok, 100); err != nil || string(b) != `{"claim":"FAILED"}` {
		t.Errorf("regular file: %q, %v", b, err)
	}
	if _, err := Read(ok, 5); !errors.Is(err, ErrTooLarge) {
		t.Errorf("over the limit: %v, want ErrTooLarge", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("missing: %v, want ErrNotExist", err)
	}
	// A FIFO nobody writes to would block os.Open and io.ReadAll for ever.
	for _, p := range []string{fifo, link, zero, dir} {
		if _, err := Read(p, 100); err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("%s: %v, want not a regular file", filepath.Base(p), err)
		}
	}
}
