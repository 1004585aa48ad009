package reportfile

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
)

// tempAttempts is how many temporary names Write tries before it falls back
// to writing the target directly.
const tempAttempts = 8

// Options configures a Writer. The zero value is ready to use.
type Options struct {
	// Sync makes each write fsync the temporary file before the rename
	// (durable across power loss; costs milliseconds per write).
	Sync bool
	// Rand returns the random part of temporary file names; nil uses
	// math/rand/v2. Tests inject a predictable source.
	Rand func() uint64
	// Warn, when set, receives one message (without a trailing newline)
	// the first time the report had to be written in place because atomic
	// replacement failed; it is never called again.
	Warn func(msg string)
}

// Writer replaces one report file atomically on each Write. It is not safe
// for concurrent use; the caller serialises writes.
type Writer struct {
	path   string      // as given, for messages
	target string      // final target after following symlinks
	perm   fs.FileMode // permissions of the report file
	chmod  bool        // target existed: keep its permissions exactly
	opts   Options
	prefix string // target + "." + pid + "."
	name   []byte // reused temp name buffer

	decided bool   // the first write was done: inPlace is settled
	inPlace bool   // atomic replacement failed on the first write: write in place only
	warned  bool   // Options.Warn was called
	buf     []byte // in place: the new contents and their padding
	pad     []byte // in place: spaces that grow the file

	wrote bool     // a Write succeeded: last is what it left in the file
	last  [32]byte // SHA-256 of the last contents written

	rename func(oldpath, newpath string) error               // os.Rename; replaced in tests
	open   func(name string, perm fs.FileMode) (file, error) // openInPlace; replaced in tests
}

// New creates the missing parent directories of path and checks it (see
// Prepare), and returns a Writer for its final target.
func New(path string, opts Options) (*Writer, error) {
	if err := makeParents(path); err != nil {
		return nil, err
	}
	target, fi, err := resolve(path)
	if err != nil {
		return nil, err
	}
	w := &Writer{
		path:   path,
		target: target,
		perm:   0o666, // narrowed by the umask, like os.Create
		opts:   opts,
		prefix: target + "." + strconv.Itoa(os.Getpid()) + ".",
		rename: os.Rename,
		open:   openInPlace,
	}
	if fi != nil {
		w.perm, w.chmod = fi.Mode().Perm(), true
	}
	if w.opts.Rand == nil {
		w.opts.Rand = rand.Uint64
	}
	removeStale(target)
	return w, nil
}

// Path returns the path the Writer was created with.
func (w *Writer) Path() string { return w.path }

// Target returns the file actually written: Path with symlinks followed.
func (w *Writer) Target() string { return w.target }

// Write replaces the report file's contents with data: a new temporary
// file renamed over the target, or, when that fails, the target rewritten
// in place (see writeInPlace). It returns an error only when both failed;
// the caller must then stop before the agent gets another answer.
//
// The first write decides: when atomic replacement fails then (a
// bind-mounted file, a directory the process may not write, a name too
// long for a temporary one), every later write goes in place at once and
// Options.Warn is told. A later failure of the atomic way (say, the disk
// is full) falls back in place for that write only.
func (w *Writer) Write(data []byte) error {
	if err := w.write(data); err != nil {
		return err
	}
	w.wrote, w.last = true, sha256.Sum256(data)
	return nil
}

func (w *Writer) write(data []byte) error {
	first := !w.decided
	w.decided = true
	if w.inPlace {
		if err := w.writeInPlace(data); err != nil {
			return fmt.Errorf("in place: %w", err)
		}
		return nil
	}
	errTemp := w.writeTemp(data)
	if errTemp == nil {
		return nil
	}
	if err := w.writeInPlace(data); err != nil {
		return fmt.Errorf("%w; in place: %w", errTemp, err)
	}
	w.inPlace = first
	w.warn(first, errTemp)
	return nil
}

// Replaced reports whether another writer has changed the file since this
// Writer's last successful Write: the target exists and holds other bytes
// than that write left (several proxies writing one file, behaviour §5.2).
// False before the first Write, when the target is gone, and when it
// cannot be read (the caller then writes as usual). A write that lands
// between Replaced and the caller's next Write is not seen.
func (w *Writer) Replaced() bool {
	if !w.wrote {
		return false
	}
	// Opened as writeInPlace opens it (no symlink followed, no blocking on
	// a FIFO), and only a regular file is read.
	f, err := os.OpenFile(w.target, os.O_RDONLY|directFlags, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return false
	}
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return false
	}
	return [32]byte(h.Sum(nil)) != w.last
}

// warn tells Options.Warn, once, that the report was written in place.
func (w *Writer) warn(fromNowOn bool, cause error) {
	if w.warned || w.opts.Warn == nil {
		return
	}
	w.warned = true
	if fromNowOn {
		w.opts.Warn(fmt.Sprintf("the report file %s cannot be replaced atomically (%v); "+
			"it is overwritten in place, so a reader can see it half-written and a kill during a write can leave it incomplete", w.path, cause))
		return
	}
	w.opts.Warn(fmt.Sprintf("the report file %s could not be replaced atomically (%v); it was overwritten in place", w.path, cause))
}

// writeTemp writes data to a new temporary file and renames it over the
// target.
func (w *Writer) writeTemp(data []byte) error {
	f, name, err := w.createTemp()
	if err != nil {
		return fmt.Errorf("temporary file: %w", err)
	}
	if w.chmod {
		// Keep the target's permissions exactly (the umask narrowed them).
		err = f.Chmod(w.perm)
	}
	if err == nil {
		err = writeClose(f, data, w.opts.Sync)
	} else {
		f.Close()
	}
	if err == nil {
		err = w.rename(name, w.target)
	}
	if err != nil {
		os.Remove(name)
		return fmt.Errorf("temporary file: %w", err)
	}
	return nil
}

// createTemp creates a temporary file exclusively. O_EXCL fails on any
// existing name, including a symlink, so a planted link is never followed;
// another random name is tried instead.
func (w *Writer) createTemp() (*os.File, string, error) {
	var err error
	for range tempAttempts {
		w.name = append(w.name[:0], w.prefix...)
		w.name = strconv.AppendUint(w.name, w.opts.Rand(), 36)
		w.name = append(w.name, ".tmp"...)
		name := string(w.name)
		var f *os.File
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, w.perm)
		if err == nil {
			return f, name, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			break
		}
	}
	return nil, "", err
}

// file is what writeInPlace needs of the opened target (*os.File); tests
// inject faults and crashes.
type file interface {
	Stat() (fs.FileInfo, error)
	WriteAt(b []byte, off int64) (int, error)
	Truncate(size int64) error
	Sync() error
	Close() error
}

// openInPlace opens the target for writing in place, without following a
// symlink and without blocking (a FIFO without reader fails at once; one
// with a reader is refused after fstat).
func openInPlace(name string, perm fs.FileMode) (file, error) {
	return os.OpenFile(name, os.O_WRONLY|os.O_CREATE|directFlags, perm)
}

// writeInPlace overwrites the target in place so that, between any two of
// its system calls, the file holds the previous report or the new one,
// each as valid JSON (JSON allows whitespace after the value):
//
//  1. when the new contents are longer, the file is first grown with
//     spaces: the old report followed by spaces is still the old report,
//     also when the disk fills up halfway (the file is then cut back to
//     its old length and the error returned: the last good report stays);
//  2. one write puts the new contents at offset 0, padded with spaces to
//     the file's length, so no byte of the old report is left after it;
//  3. only then is the file shortened to the new contents.
//
// The target is never truncated first, so a failed write never destroys
// the last good report. What no ordering can prevent: the kernel copies
// the one write of step 2 page by page and stops early for a fatal signal,
// so a kill -9 that lands inside that call (microseconds) can still leave
// a mix of both reports; and on a copy-on-write file system (btrfs, ZFS) a
// full disk can fail step 2 itself.
func (w *Writer) writeInPlace(data []byte) error {
	f, err := w.open(w.target, w.perm)
	if err != nil {
		return err
	}
	err = w.overwrite(f, data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// overwrite does steps 1 to 3 of writeInPlace on the opened target.
func (w *Writer) overwrite(f file, data []byte) error {
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s is %s, %w", w.target, describe(fi.Mode()), ErrNotRegular)
	}
	old := fi.Size()
	size := int64(len(data))
	if size > old {
		w.pad = spaces(w.pad[:0], int(size-old))
		if _, err := f.WriteAt(w.pad, old); err != nil {
			_ = f.Truncate(old) // the spaces that did fit go again
			return err
		}
	}
	padded := data
	if old > size {
		w.buf = spaces(append(w.buf[:0], data...), int(old-size))
		padded = w.buf
	}
	if _, err := f.WriteAt(padded, 0); err != nil {
		return err
	}
	if old > size {
		// A failure here leaves the new report followed by spaces: still
		// the new report, so it is not an error.
		_ = f.Truncate(size)
	}
	if w.opts.Sync {
		return f.Sync()
	}
	return nil
}

// spaces appends n spaces to b.
func spaces(b []byte, n int) []byte {
	if n <= 0 {
		return b
	}
	l := len(b)
	b = slices.Grow(b, n)[:l+n]
	for i := l; i < len(b); i++ {
		b[i] = ' '
	}
	return b
}

// writeClose writes data, optionally syncs, and closes f.
func writeClose(f *os.File, data []byte, sync bool) error {
	_, err := f.Write(data)
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
