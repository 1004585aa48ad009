package reportfile

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
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

	rename func(oldpath, newpath string) error // os.Rename; replaced in tests
}

// New checks path (see Check) and returns a Writer for its final target.
func New(path string, opts Options) (*Writer, error) {
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
	}
	if fi != nil {
		w.perm, w.chmod = fi.Mode().Perm(), true
	}
	if w.opts.Rand == nil {
		w.opts.Rand = rand.Uint64
	}
	return w, nil
}

// Path returns the path the Writer was created with.
func (w *Writer) Path() string { return w.path }

// Target returns the file actually written: Path with symlinks followed.
func (w *Writer) Target() string { return w.target }

// Write replaces the report file's contents with data: a new temporary
// file renamed over the target, or, when that fails, a direct write of the
// target. It returns an error only when both failed; the caller must then
// stop before the agent gets another answer.
func (w *Writer) Write(data []byte) error {
	return w.WriteParts([][]byte{data})
}

// WriteParts is Write for contents given as parts, written one after the
// other, so that a caller holding the contents in pieces need not copy
// them into one buffer first.
func (w *Writer) WriteParts(parts [][]byte) error {
	errTemp := w.writeTemp(parts)
	if errTemp == nil {
		return nil
	}
	errDirect := w.writeDirect(parts)
	if errDirect == nil {
		return nil
	}
	return fmt.Errorf("%w; direct write: %w", errTemp, errDirect)
}

// writeTemp writes parts to a new temporary file and renames it over the
// target.
func (w *Writer) writeTemp(parts [][]byte) error {
	f, name, err := w.createTemp()
	if err != nil {
		return fmt.Errorf("temporary file: %w", err)
	}
	if w.chmod {
		// Keep the target's permissions exactly (the umask narrowed them).
		err = f.Chmod(w.perm)
	}
	if err == nil {
		err = writeClose(f, parts, w.opts.Sync)
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

// writeDirect overwrites the target in place. It opens without following
// a symlink and without blocking (a FIFO without reader fails at once, one
// with a reader is refused after fstat), and truncates only after checking
// that what it opened is a regular file.
func (w *Writer) writeDirect(parts [][]byte) error {
	f, err := os.OpenFile(w.target, os.O_WRONLY|os.O_CREATE|directFlags, w.perm)
	if err != nil {
		return err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is %s, %w", w.target, describe(fi.Mode()), ErrNotRegular)
	}
	if err == nil {
		err = f.Truncate(0)
	}
	if err != nil {
		f.Close()
		return err
	}
	return writeClose(f, parts, w.opts.Sync)
}

// writeClose writes parts, optionally syncs, and closes f.
func writeClose(f *os.File, parts [][]byte, sync bool) error {
	var err error
	for _, p := range parts {
		if _, err = f.Write(p); err != nil {
			break
		}
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}
