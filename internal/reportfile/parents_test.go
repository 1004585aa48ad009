package reportfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestNewCreatesParentDirectories: --report-file out/run/report.json with
// no out/ creates out/run and writes the report there; an existing
// symlinked directory on the way is followed.
func TestNewCreatesParentDirectories(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	w, err := New(filepath.Join("out", "run", "report.json"), Options{})
	if err != nil {
		t.Fatalf("New in a missing directory: %v", err)
	}
	if err := w.Write([]byte(`{"verdict":"PASS"}`)); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "out", "run", "report.json")); err != nil || string(b) != `{"verdict":"PASS"}` {
		t.Errorf("report = %q, %v", b, err)
	}
	// Through a symlinked directory: the new directory is made in its target.
	if err := os.Mkdir(filepath.Join(dir, "real"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := Prepare(filepath.Join("link", "new", "t.trace")); err != nil {
		t.Fatalf("Prepare through a symlinked directory: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "real", "new")); err != nil || !fi.IsDir() {
		t.Errorf("real/new: %v", err)
	}
}

// TestParentDirectoryErrors: what is wrong with a directory that cannot be
// made is said in one line of plain words, and nothing is created; the
// directory of a dangling symlink's target is not created.
func TestParentDirectoryErrors(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.WriteFile("notes", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo("pipe", 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("missing", "r.json"), "dangling"); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, path, want string
	}{
		{"a parent is a file", "notes/run/report.json", "checking report file notes/run/report.json: notes is a file, not a directory"},
		{"the parent is a file", "notes/report.json", "checking report file notes/report.json: notes is a file, not a directory"},
		{"a parent is a FIFO", "pipe/report.json", "checking report file pipe/report.json: pipe is a FIFO, not a directory"},
		{"a dangling symlink into a missing directory", "dangling", "checking report file dangling: directory missing does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for _, f := range []func(string) error{Prepare, func(p string) error { _, err := New(p, Options{}); return err }} {
				if err := f(tt.path); err == nil || err.Error() != tt.want {
					t.Errorf("error %v, want %q", err, tt.want)
				}
			}
		})
	}
	if _, err := os.Lstat("missing"); err == nil {
		t.Error("the dangling symlink's directory was created")
	}

	// Failures of mkdir itself, as the system reports them (a test running
	// as root could not provoke EACCES).
	for _, tt := range []struct {
		name string
		err  error
		want string
	}{
		{"no permission", syscall.EACCES, "checking report file out/run/r.json: cannot create directory out: permission denied"},
		{"read-only file system", syscall.EROFS, "checking report file out/run/r.json: cannot create directory out: read-only file system"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			defer func(f func(string, fs.FileMode) error) { mkdirAll = f }(mkdirAll)
			mkdirAll = func(string, fs.FileMode) error { return &fs.PathError{Op: "mkdir", Path: "out", Err: tt.err} }
			if err := Prepare("out/run/r.json"); err == nil || err.Error() != tt.want {
				t.Errorf("Prepare = %v, want %q", err, tt.want)
			}
			if _, err := New("out/run/r.json", Options{}); err == nil || err.Error() != tt.want {
				t.Errorf("New = %v, want %q", err, tt.want)
			}
		})
	}
}

// TestMakeDir: a campaign's --out directory is made with its parents; an
// existing file in the way is named, and the error wraps ErrNoDirectory.
func TestMakeDir(t *testing.T) {
	dir := t.TempDir()
	if err := MakeDir(filepath.Join(dir, "a", "b")); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "a", "b")); err != nil || !fi.IsDir() {
		t.Errorf("a/b: %v", err)
	}
	file := filepath.Join(dir, "notes")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{file, filepath.Join(file, "c")} {
		err := MakeDir(p)
		if want := file + " is a file, not a directory"; err == nil || err.Error() != want || !errors.Is(err, ErrNoDirectory) {
			t.Errorf("MakeDir(%s) = %v, want %q wrapping ErrNoDirectory", p, err, want)
		}
	}
}
