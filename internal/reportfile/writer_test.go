package reportfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
)

// counter returns a predictable random source 1, 2, 3, …
func counter() func() uint64 {
	var n uint64
	return func() uint64 { n++; return n }
}

// tempName predicts the temporary name a Writer with counter() uses for
// draw n.
func tempName(target string, n uint64) string {
	return target + "." + strconv.Itoa(os.Getpid()) + "." + strconv.FormatUint(n, 36) + ".tmp"
}

func newWriter(t *testing.T, path string) *Writer {
	t.Helper()
	w, err := New(path, Options{Rand: counter()})
	if err != nil {
		t.Fatalf("New(%q): %v", path, err)
	}
	return w
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// entries lists a directory's names.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return names
}

func TestWriteReplacesAndLeavesNoTempFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	w := newWriter(t, target)
	for _, body := range []string{`{"status":"starting"}`, `{"status":"running","long":"xxxxxxxxxxxxxxxx"}`, `{"status":"finished"}`} {
		if err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != body {
			t.Errorf("file = %q, want %q", got, body)
		}
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"report.json"}) {
		t.Errorf("directory holds %v, want only report.json", got)
	}
}

func TestWriteKeepsPermissions(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	if err := os.WriteFile(target, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, target)
	if err := w.Write([]byte("{}")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(target)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
}

func TestWriteFollowsSymlinkedTarget(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real", "report.json")
	if err := os.Mkdir(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, link)
	if err := w.Write([]byte("one")); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("two")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, real); got != "two" {
		t.Errorf("link target holds %q, want two", got)
	}
	fi, err := os.Lstat(link)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link is no longer a symlink: %v %v", fi, err)
	}
	if w.Target() != real {
		t.Errorf("Target() = %q, want %q", w.Target(), real)
	}
}

// TestPlantedSymlinkAtTempNameIsNotFollowed: an attacker who predicts the
// next temporary name and plants a symlink there gets nothing written
// through it; the writer takes another name.
func TestPlantedSymlinkAtTempNameIsNotFollowed(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	victim := filepath.Join(dir, "victim")
	if err := os.WriteFile(victim, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, target)
	planted := tempName(target, 1)
	if err := os.Symlink(victim, planted); err != nil {
		t.Fatal(err)
	}
	if err := w.Write([]byte("report")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, victim); got != "precious" {
		t.Errorf("victim = %q, was written through the planted symlink", got)
	}
	if got := readFile(t, target); got != "report" {
		t.Errorf("target = %q, want report", got)
	}
	if fi, err := os.Lstat(planted); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("planted symlink changed: %v %v", fi, err)
	}
}

// TestFallbackToDirectWrite: when no temporary file can be created (every
// name taken here) or the rename fails, the target is written in place.
func TestFallbackToDirectWrite(t *testing.T) {
	t.Run("no temporary name free", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "report.json")
		w := newWriter(t, target)
		for n := uint64(1); n <= tempAttempts; n++ {
			if err := os.WriteFile(tempName(target, n), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Write([]byte("direct")); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != "direct" {
			t.Errorf("target = %q, want direct", got)
		}
	})
	t.Run("rename fails", func(t *testing.T) {
		dir := t.TempDir()
		target := filepath.Join(dir, "report.json")
		if err := os.WriteFile(target, []byte("a much longer previous report"), 0o644); err != nil {
			t.Fatal(err)
		}
		w := newWriter(t, target)
		w.rename = func(string, string) error { return syscall.EBUSY } // a bind-mounted file
		if err := w.Write([]byte("direct")); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != "direct" {
			t.Errorf("target = %q, want direct", got)
		}
		if got := entries(t, dir); !slices.Equal(got, []string{"report.json"}) {
			t.Errorf("directory holds %v, temporary file left behind", got)
		}
	})
}

// TestWriteFailsWhenTargetStopsBeingARegularFile: both ways fail, Write
// returns an error, nothing is left behind, and nothing blocks.
func TestWriteFailsWhenTargetStopsBeingARegularFile(t *testing.T) {
	tests := []struct {
		name    string
		replace func(target string) error
		// takeNames fills every temporary name so only the direct write is tried.
		takeNames bool
	}{
		{"replaced by a directory", func(p string) error { return os.Mkdir(p, 0o755) }, false},
		{"replaced by a FIFO without reader", func(p string) error { return syscall.Mkfifo(p, 0o644) }, true},
		{"replaced by a symlink", func(p string) error { return os.Symlink("/dev/null", p) }, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			target := filepath.Join(dir, "report.json")
			w := newWriter(t, target)
			if err := w.Write([]byte("first")); err != nil {
				t.Fatal(err)
			}
			if err := os.Remove(target); err != nil {
				t.Fatal(err)
			}
			if err := tt.replace(target); err != nil {
				t.Fatal(err)
			}
			before := entries(t, dir)
			if tt.takeNames {
				for n := uint64(1); n <= 2*tempAttempts; n++ {
					if err := os.WriteFile(tempName(target, n), nil, 0o644); err != nil {
						t.Fatal(err)
					}
				}
				before = entries(t, dir)
			}
			if err := w.Write([]byte("second")); err == nil {
				t.Fatal("Write succeeded, want an error")
			}
			if got := entries(t, dir); !slices.Equal(got, before) {
				t.Errorf("directory changed from %v to %v", before, got)
			}
		})
	}
}

// TestUnwritableDirectory: without permission to create files in the
// directory the direct write is used; without permission on the file too,
// Write fails. Root ignores permissions, so this runs only as another user.
func TestUnwritableDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root ignores file permissions; the other failure tests cover the error path")
	}
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	if err := os.WriteFile(target, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	w := newWriter(t, target)
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755) })
	if err := w.Write([]byte("direct")); err != nil {
		t.Fatalf("fallback failed: %v", err)
	}
	if got := readFile(t, target); got != "direct" {
		t.Errorf("target = %q, want direct", got)
	}
	if err := os.Chmod(target, 0o444); err != nil {
		t.Fatal(err)
	}
	err := w.Write([]byte("never"))
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("Write = %v, want a permission error", err)
	}
}

// BenchmarkWrite measures one atomic replacement of a report of the given
// size: the file-system floor of the report contract.
func BenchmarkWrite(b *testing.B) {
	for _, size := range []int{20 << 10, 1 << 20} {
		for _, sync := range []bool{false, true} {
			name := strconv.Itoa(size>>10) + "KiB"
			if sync {
				name += "/fsync"
			}
			b.Run(name, func(b *testing.B) {
				w, err := New(filepath.Join(b.TempDir(), "report.json"), Options{Sync: sync})
				if err != nil {
					b.Fatal(err)
				}
				data := make([]byte, size)
				b.SetBytes(int64(size))
				for b.Loop() {
					if err := w.Write(data); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
