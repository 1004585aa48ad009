package reportfile

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// deadPid can be no process: it is above the largest pid_max Linux allows
// (2^22), and beyond every other unix's pid range.
const deadPid = 99999999

// TestNewRemovesStaleTempFiles: at start, temporary files of writers that
// no longer run are removed — only exact temporary names of this target,
// only regular files, never one whose pid runs.
func TestNewRemovesStaleTempFiles(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	dead := strconv.Itoa(deadPid)
	live := strconv.Itoa(os.Getppid()) // the go command that runs this test
	stale := []string{
		"report.json." + dead + ".1.tmp",
		"report.json." + dead + ".3kx9zq0a.tmp",
	}
	kept := []string{
		"report.json." + live + ".1.tmp",                      // a live writer's
		"report.json.1.1.tmp",                                 // pid 1 always runs
		"report.json." + strconv.Itoa(os.Getpid()) + ".7.tmp", // this process's own
		"report.json.0" + dead + ".1.tmp",                     // not a name the writer makes
		"report.json." + dead + ".1.tmp.bak",
		"report.json." + dead + ".A.tmp",
		"report.json." + dead + "..tmp",
		"report.json." + dead + ".1.2.tmp",
		"other.json." + dead + ".1.tmp", // another target's
		"report.json",
	}
	for _, name := range append(slices.Clone(stale), kept...) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte("{"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	notRegular := "report.json." + dead + ".2.tmp"
	if err := os.Mkdir(filepath.Join(dir, notRegular), 0o755); err != nil {
		t.Fatal(err)
	}
	link := "report.json." + dead + ".3.tmp"
	if err := os.Symlink("report.json", filepath.Join(dir, link)); err != nil {
		t.Fatal(err)
	}
	kept = append(kept, notRegular, link)
	newWriter(t, target)
	got := entries(t, dir)
	slices.Sort(kept)
	if !slices.Equal(got, kept) {
		t.Errorf("directory holds %v, want %v", got, kept)
	}
	if readFile(t, target) != "{" {
		t.Error("the report itself was changed")
	}
}

func TestStaleName(t *testing.T) {
	tests := []struct {
		name string
		pid  int
		ok   bool
	}{
		{"r.json.123.abc.tmp", 123, true},
		{"r.json.1.0.tmp", 1, true},
		{"r.json.0.1.tmp", 0, false},
		{"r.json.012.1.tmp", 0, false},
		{"r.json.12.01.tmp", 0, false},
		{"r.json.12.tmp", 0, false},
		{"r.json..1.tmp", 0, false},
		{"r.json.-1.1.tmp", 0, false},
		{"r.json.99999999999999999999999.1.tmp", 0, false},
		{"r.json.12.Z.tmp", 0, false},
		{"r.jsonx.12.1.tmp", 0, false},
		{"r.json.12.1.tmpx", 0, false},
	}
	for _, tt := range tests {
		pid, ok := staleName("r.json", tt.name)
		if pid != tt.pid || ok != tt.ok {
			t.Errorf("staleName(%q) = %d, %v, want %d, %v", tt.name, pid, ok, tt.pid, tt.ok)
		}
	}
}

// FuzzStaleName: a name is accepted exactly when the writer could have
// made it: prefix + pid + "." + base-36 number + ".tmp".
func FuzzStaleName(f *testing.F) {
	for _, s := range []string{"r.json.123.abc.tmp", "r.json.0.1.tmp", "r.json..tmp", "r.json.1.2.3.tmp", "x"} {
		f.Add("r.json", s)
	}
	f.Add("", ".1.1.tmp")
	f.Fuzz(func(t *testing.T, base, name string) {
		pid, ok := staleName(base, name)
		if !ok {
			return
		}
		if pid <= 0 {
			t.Fatalf("pid %d accepted", pid)
		}
		rest := name[len(base)+1+len(strconv.Itoa(pid))+1 : len(name)-len(".tmp")]
		n, err := strconv.ParseUint(rest, 36, 64)
		want := base + "." + strconv.Itoa(pid) + "." + strconv.FormatUint(n, 36) + ".tmp"
		if err == nil && want != name {
			t.Fatalf("%q accepted, the writer would write %q", name, want)
		}
	})
}
