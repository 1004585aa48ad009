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
