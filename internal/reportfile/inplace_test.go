package reportfile

import (
	"bytes"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
)

// errCrash stands for the process being killed: the call and every later
// one have no effect.
var errCrash = errors.New("crashed")

// crashFile applies operations to the real file until its budget is spent,
// then crashes. A write that grows the file (at its end) spends one unit
// per byte, so a crash can tear it at any byte; a write over existing
// contents and each truncate spend one unit:
// the crash comes before or after each system call. (The kernel can stop
// the write at offset 0 early at a page boundary for a fatal signal; that
// window cannot be closed without atomic replacement and is documented.)
type crashFile struct {
	*os.File
	budget  int
	crashed bool
	calls   []string // "grow", "overwrite", "truncate", in order
}

func (c *crashFile) spend(n int) int {
	if c.crashed {
		return 0
	}
	if n > c.budget {
		n = c.budget
		c.crashed = true
	}
	c.budget -= n
	return n
}

func (c *crashFile) WriteAt(b []byte, off int64) (int, error) {
	if c.crashed {
		return 0, errCrash
	}
	fi, err := c.File.Stat()
	if err != nil {
		return 0, err
	}
	if off < fi.Size() {
		c.calls = append(c.calls, "overwrite")
		if c.spend(1) == 0 {
			return 0, errCrash
		}
		return c.File.WriteAt(b, off)
	}
	c.calls = append(c.calls, "grow")
	n := c.spend(len(b))
	if _, err := c.File.WriteAt(b[:n], off); err != nil {
		return 0, err
	}
	if c.crashed {
		return n, errCrash
	}
	return n, nil
}

func (c *crashFile) Truncate(size int64) error {
	if c.crashed {
		return errCrash
	}
	c.calls = append(c.calls, "truncate")
	if c.spend(1) == 0 {
		return errCrash
	}
	return c.File.Truncate(size)
}

// inPlaceWriter returns a Writer for target whose atomic replacement
// always fails (a bind-mounted file: rename gives EBUSY), so every write
// goes in place, through wrap.
func inPlaceWriter(t *testing.T, target string, wrap func(*os.File) file) *Writer {
	t.Helper()
	w := newWriter(t, target)
	w.rename = func(string, string) error { return syscall.EBUSY }
	w.open = func(name string, perm fs.FileMode) (file, error) {
		f, err := openInPlace(name, perm)
		if err != nil {
			return nil, err
		}
		return wrap(f.(*os.File)), nil
	}
	return w
}

// reportOf returns which report the file holds: "old", "new", or "" when it
// is neither (torn, or not JSON). Trailing spaces are the writer's padding;
// JSON allows them.
func reportOf(t *testing.T, got []byte, oldReport, newReport string) string {
	t.Helper()
	trimmed := string(bytes.TrimRight(got, " "))
	if oldReport != "" && !json.Valid(got) {
		return ""
	}
	switch trimmed {
	case oldReport:
		return "old"
	case newReport:
		return "new"
	}
	return ""
}

// testReport is a JSON report of about n bytes.
func testReport(status string, n int) string {
	return `{"status":"` + status + `","report":{"operations":["` + strings.Repeat("x", max(n-44, 0)) + `"]}}`
}

// TestInPlaceCrashAtEveryStep: whatever system call or byte of a growing
// write a crash interrupts, the file holds the old report or the new one,
// as valid JSON; the write over the old contents is one call.
func TestInPlaceCrashAtEveryStep(t *testing.T) {
	tests := []struct {
		name     string
		old, new string
	}{
		{"new report longer", testReport("starting", 60), testReport("running", 300)},
		{"new report shorter", testReport("running", 300), testReport("finished", 60)},
		{"same length", testReport("running", 100), testReport("finished", 100)},
		{"old report padded by an earlier crash", testReport("running", 80) + "      ", testReport("running", 90)},
		{"no old report", "", testReport("starting", 70)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			target := filepath.Join(t.TempDir(), "report.json")
			oldReport := strings.TrimRight(tt.old, " ")
			sawNew := false
			for budget := 0; ; budget++ {
				if err := os.WriteFile(target, []byte(tt.old), 0o644); err != nil {
					t.Fatal(err)
				}
				var cf *crashFile
				w := inPlaceWriter(t, target, func(f *os.File) file {
					cf = &crashFile{File: f, budget: budget}
					return cf
				})
				err := w.Write([]byte(tt.new))
				got := []byte(readFile(t, target))
				which := reportOf(t, got, oldReport, tt.new)
				if which == "" {
					t.Fatalf("crash after %d units (calls %v): file is neither report: %q", budget, cf.calls, got)
				}
				if which == "new" {
					sawNew = true
				}
				if !cf.crashed {
					if err != nil {
						t.Fatalf("write without crash failed: %v", err)
					}
					if string(got) != tt.new {
						t.Errorf("after the write the file is %q, want exactly the new report", got)
					}
					if n := strings.Count(strings.Join(cf.calls, " "), "overwrite"); n != 1 {
						t.Errorf("calls %v: %d writes over the old contents, want 1", cf.calls, n)
					}
					break
				}
			}
			if !sawNew {
				t.Error("the new report never appeared")
			}
		})
	}
}

// fullFile is a file on a disk with room for limit bytes: a write beyond
// it stores what fits and fails with ENOSPC.
type fullFile struct {
	*os.File
	limit int64
}

func (f *fullFile) WriteAt(b []byte, off int64) (int, error) {
	if end := off + int64(len(b)); end > f.limit {
		n := max(f.limit-off, 0)
		if _, err := f.File.WriteAt(b[:n], off); err != nil {
			return 0, err
		}
		return int(n), syscall.ENOSPC
	}
	return f.File.WriteAt(b, off)
}

// TestInPlaceDiskFull: a disk that fills up at any byte while the file
// grows leaves the last good report exactly, and Write reports ENOSPC; a
// shorter report needs no new space and is written.
func TestInPlaceDiskFull(t *testing.T) {
	oldReport, longer, shorter := testReport("running", 100), testReport("running", 400), testReport("finished", 50)
	for limit := int64(len(oldReport)); limit < int64(len(longer)); limit++ {
		target := filepath.Join(t.TempDir(), "report.json")
		if err := os.WriteFile(target, []byte(oldReport), 0o644); err != nil {
			t.Fatal(err)
		}
		w := inPlaceWriter(t, target, func(f *os.File) file { return &fullFile{File: f, limit: limit} })
		err := w.Write([]byte(longer))
		if !errors.Is(err, syscall.ENOSPC) {
			t.Fatalf("room for %d bytes: Write = %v, want ENOSPC", limit, err)
		}
		if got := readFile(t, target); got != oldReport {
			t.Fatalf("room for %d bytes: file %q, want the old report", limit, got)
		}
		if got := entries(t, filepath.Dir(target)); !slices.Equal(got, []string{"report.json"}) {
			t.Fatalf("directory holds %v", got)
		}
		if err := w.Write([]byte(shorter)); err != nil {
			t.Fatalf("room for %d bytes: shorter report: %v", limit, err)
		}
		if got := readFile(t, target); got != shorter {
			t.Fatalf("room for %d bytes: file %q, want the shorter report", limit, got)
		}
	}
}

// TestAtomicReplacementFailsAtStart: when the first write cannot replace
// the file atomically (rename: EBUSY, as for a bind-mounted file), Warn is
// told once, and every later write goes in place without trying again.
func TestAtomicReplacementFailsAtStart(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	var warnings []string
	w, err := New(target, Options{Rand: counter(), Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	renames := 0
	w.rename = func(string, string) error { renames++; return syscall.EBUSY }
	for _, body := range []string{testReport("starting", 50), testReport("running", 500), testReport("finished", 80)} {
		if err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != body {
			t.Errorf("file %q, want %q", got, body)
		}
		if got := entries(t, dir); !slices.Equal(got, []string{"report.json"}) {
			t.Errorf("directory holds %v", got)
		}
	}
	if renames != 1 {
		t.Errorf("%d renames tried, want 1 (the first write decides)", renames)
	}
	want := "the report file " + target + " cannot be replaced atomically (temporary file: device or resource busy); it is overwritten in place"
	if len(warnings) != 1 || !strings.HasPrefix(warnings[0], want) || strings.Contains(warnings[0], "\n") {
		t.Errorf("warnings %q, want one line starting %q", warnings, want)
	}
}

// TestAtomicReplacementFailsLater: a later failure of the atomic way
// writes in place once (one warning) and the next write is atomic again.
func TestAtomicReplacementFailsLater(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "report.json")
	var warnings []string
	w, err := New(target, Options{Rand: counter(), Warn: func(m string) { warnings = append(warnings, m) }})
	if err != nil {
		t.Fatal(err)
	}
	fail := false
	renames := 0
	w.rename = func(a, b string) error {
		renames++
		if fail {
			return syscall.ENOSPC
		}
		return os.Rename(a, b)
	}
	for i, body := range []string{"{}", `{"a":1}`, `{"a":2}`, `{"a":3}`} {
		fail = i == 1 || i == 2
		if err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != body {
			t.Errorf("file %q, want %q", got, body)
		}
	}
	if renames != 4 {
		t.Errorf("%d renames tried, want 4", renames)
	}
	if len(warnings) != 1 || !strings.Contains(warnings[0], "could not be replaced atomically") {
		t.Errorf("warnings %q, want one 'could not be replaced atomically'", warnings)
	}
}

// TestNameTooLongForATemporaryFile: a target name so long that no
// temporary name fits (NAME_MAX) is written in place — a real failure of
// atomic replacement that needs no privileges to produce.
func TestNameTooLongForATemporaryFile(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, strings.Repeat("r", 240)+".json")
	warned := 0
	w, err := New(target, Options{Warn: func(string) { warned++ }})
	if err != nil {
		t.Fatal(err)
	}
	for _, body := range []string{testReport("starting", 300), testReport("finished", 100)} {
		if err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
		if got := readFile(t, target); got != body {
			t.Errorf("file %q, want %q", got, body)
		}
	}
	if warned != 1 {
		t.Errorf("%d warnings, want 1", warned)
	}
}
