package reportfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNoDirectory is wrapped by the errors of MakeDir, Prepare and New when
// a directory of the path cannot be created; the message says why in plain
// words.
var ErrNoDirectory = errors.New("directory cannot be created")

// Prepare creates the missing parent directories of path, as `mkdir -p`
// would (permissions 0777 narrowed by the umask), and then checks path
// like Check. New does the same; trace files use Prepare before they open
// path (behaviour §5.2).
//
// Only the directories of path as given are created: existing symlinks
// among them are followed, but the directory of a symlink's target is
// never created, so a dangling link into a missing directory stays an
// error.
func Prepare(path string) error {
	if err := makeParents(path); err != nil {
		return err
	}
	return Check(path)
}

// makeParents creates the missing directories of path.
func makeParents(path string) error {
	if path == "" {
		return errors.New("checking report file: empty path")
	}
	if err := MakeDir(filepath.Dir(path)); err != nil {
		return fmt.Errorf("checking report file %s: %w", path, err)
	}
	return nil
}

// mkdirAll is os.MkdirAll; tests replace it to fail as a system would.
var mkdirAll = os.MkdirAll

// MakeDir creates dir and its missing parents (`mkdir -p`). When that is
// impossible the error, wrapping ErrNoDirectory, says why in one line:
// "out is a file, not a directory", "cannot create directory out/run:
// permission denied".
func MakeDir(dir string) error {
	if fi, err := os.Stat(dir); err == nil && fi.IsDir() {
		return nil
	}
	err := mkdirAll(dir, 0o777)
	if err == nil {
		return nil
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		return &mkdirError{fmt.Sprintf("cannot create directory %s: %v", dir, err), err}
	}
	if errors.Is(pe.Err, syscall.ENOTDIR) || errors.Is(pe.Err, syscall.EEXIST) {
		// MkdirAll names the existing component that is not a directory.
		what := "not a directory"
		if fi, serr := os.Stat(pe.Path); serr == nil && fi.Mode().IsRegular() {
			what = "a file, not a directory"
		} else if serr == nil {
			what = describe(fi.Mode()) + ", not a directory"
		}
		return &mkdirError{fmt.Sprintf("%s is %s", pe.Path, what), pe.Err}
	}
	// The system's words are plain here: "permission denied",
	// "read-only file system", "no space left on device".
	return &mkdirError{fmt.Sprintf("cannot create directory %s: %v", pe.Path, pe.Err), pe.Err}
}

// mkdirError is a MakeDir failure: msg is the whole message.
type mkdirError struct {
	msg string
	err error
}

func (e *mkdirError) Error() string   { return e.msg }
func (e *mkdirError) Unwrap() []error { return []error{ErrNoDirectory, e.err} }
