package reportfile

import (
	"errors"
	"net"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "report.json")
	if err := os.WriteFile(regular, []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	link := func(name, to string) string {
		p := filepath.Join(dir, name)
		if err := os.Symlink(to, p); err != nil {
			t.Fatal(err)
		}
		return p
	}
	toRegular := link("to-regular", "report.json")
	toLink := link("to-link", "to-regular")
	dangling := link("dangling", "new.json")
	toNull := link("to-null", "/dev/null")
	toFIFO := link("to-fifo", fifo)
	loop1 := link("loop1", "loop2")
	link("loop2", "loop1")
	// out -> real/sub, and real/sub/report.json -> ../target.json: the
	// kernel resolves the ".." from real/sub, so the target is
	// real/target.json, not target.json beside out.
	if err := os.MkdirAll(filepath.Join(dir, "real", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	link("out", filepath.Join(dir, "real", "sub"))
	link(filepath.Join("real", "sub", "report.json"), "../target.json")
	link(filepath.Join("real", "sub", "to-dir"), "../sub/..")

	tests := []struct {
		name string
		path string
		ok   bool
		is   error
	}{
		{"absent file in existing directory", filepath.Join(dir, "new.json"), true, nil},
		{"regular file", regular, true, nil},
		{"symlink to regular file", toRegular, true, nil},
		{"symlink to symlink to regular file", toLink, true, nil},
		{"dangling symlink into existing directory", dangling, true, nil},
		{"/dev/null", "/dev/null", false, ErrNotRegular},
		{"symlink to /dev/null", toNull, false, ErrNotRegular},
		{"directory", dir, false, ErrNotRegular},
		{"FIFO", fifo, false, ErrNotRegular},
		{"symlink to FIFO", toFIFO, false, ErrNotRegular},
		{"socket", sock, false, ErrNotRegular},
		{"/proc/self/status", "/proc/self/status", false, ErrPseudoFS},
		{"absent file under /proc", "/proc/self/new.json", false, ErrPseudoFS},
		{"/proc/self/fd/0", "/proc/self/fd/0", false, nil},
		{"/sys file", "/sys/kernel/mm/transparent_hugepage/enabled", false, nil},
		{"missing directory", filepath.Join(dir, "no", "such", "report.json"), false, nil},
		{"symlink loop", loop1, false, nil},
		{"empty path", "", false, nil},
		{"trailing separator", dir + "/", false, ErrNotRegular},
		{"dot-dot as the last name", filepath.Join(dir, "real") + "/..", false, ErrNotRegular},
		{"symlink through a symlinked directory with .. in its target", filepath.Join(dir, "out", "report.json"), true, nil},
		{"symlink whose target resolves to a directory", filepath.Join(dir, "out", "to-dir"), false, ErrNotRegular},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Check(tt.path)
			if (err == nil) != tt.ok {
				t.Fatalf("Check(%q) = %v, want ok=%v", tt.path, err, tt.ok)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("Check(%q) = %v, want %v", tt.path, err, tt.is)
			}
		})
	}
}

// TestResolvePhysical: the file written is the one the kernel opens for the
// path, also when symlinked directories and ".." meet (a textual ".." would
// write beside the symlink instead: a stale report at the path CI reads,
// and another file overwritten).
func TestResolvePhysical(t *testing.T) {
	dir := t.TempDir()
	sub := filepath.Join(dir, "real", "sub")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	mustSymlink := func(to, at string) {
		if err := os.Symlink(to, at); err != nil {
			t.Fatal(err)
		}
	}
	mustSymlink(sub, filepath.Join(dir, "out"))
	mustSymlink("../target.json", filepath.Join(sub, "report.json"))
	bystander := filepath.Join(dir, "target.json")
	if err := os.WriteFile(bystander, []byte("precious"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{
		filepath.Join(dir, "out", "report.json"),
		dir + "/out/../sub/report.json", // out/.. is real, not dir (filepath.Join would clean it)
	} {
		w, err := New(path, Options{})
		if err != nil {
			t.Fatalf("New(%q): %v", path, err)
		}
		if want := filepath.Join(dir, "real", "target.json"); w.Target() != want {
			t.Errorf("Target() = %q, want %q", w.Target(), want)
		}
		if err := w.Write([]byte(`{"verdict":"FAIL"}`)); err != nil {
			t.Fatal(err)
		}
		if b, err := os.ReadFile(path); err != nil || string(b) != `{"verdict":"FAIL"}` {
			t.Errorf("reading %s back: %q, %v", path, b, err)
		}
	}
	if b, _ := os.ReadFile(bystander); string(b) != "precious" {
		t.Errorf("%s overwritten: %q", bystander, b)
	}
}
