package reportfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// maxLinks bounds symlink resolution, like the kernel's ELOOP limit.
const maxLinks = 40

// ErrNotRegular is returned for a target that exists and is not a regular
// file (directory, device such as /dev/null, FIFO, socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrPseudoFS is returned for a target on a kernel pseudo file system such
// as /proc or /sys.
var ErrPseudoFS = errors.New("on a kernel pseudo file system")

// Check reports whether path can be used as a report file: after following
// symlinks it must name a regular file, or nothing in an existing
// directory, on a real file system. It only looks (lstat, readlink,
// statfs); it never opens the target, so FIFOs and devices cannot block it.
func Check(path string) error {
	_, _, err := resolve(path)
	return err
}

// resolve follows symlinks to the final target and checks it. It returns
// the final path and its file info (nil when absent).
//
// Each round resolves the directory part physically (filepath.EvalSymlinks
// follows symlinked directories before it applies ".."), then looks at the
// last name. A relative link target is appended to that physical directory
// without cleaning, so a ".." in it is resolved in the next round the way
// the kernel resolves it, never as text: "out/report.json -> ../x.json"
// with out a symlink to real/sub names real/x.json, not x.json beside out.
func resolve(path string) (string, fs.FileInfo, error) {
	if path == "" {
		return "", nil, errors.New("checking report file: empty path")
	}
	p := path
	for range maxLinks {
		dir, base := splitLast(p)
		if base == "" || base == "." || base == ".." {
			fi, err := os.Stat(p)
			if err != nil {
				return "", nil, fmt.Errorf("checking report file %s: %w", path, err)
			}
			return "", nil, fmt.Errorf("checking report file %s: %s is %s, %w", path, p, describe(fi.Mode()), ErrNotRegular)
		}
		realDir, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return "", nil, dirError(path, err)
		}
		q := filepath.Join(realDir, base)
		fi, err := os.Lstat(q)
		if errors.Is(err, fs.ErrNotExist) {
			return q, nil, checkDir(path, realDir)
		}
		if err != nil {
			return "", nil, fmt.Errorf("checking report file %s: %w", path, err)
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			if !fi.Mode().IsRegular() {
				return "", nil, fmt.Errorf("checking report file %s: %s is %s, %w", path, q, describe(fi.Mode()), ErrNotRegular)
			}
			return q, fi, checkDir(path, realDir)
		}
		link, err := os.Readlink(q)
		if err != nil {
			return "", nil, fmt.Errorf("checking report file %s: %w", path, err)
		}
		if !filepath.IsAbs(link) {
			link = realDir + string(filepath.Separator) + link
		}
		p = link
	}
	return "", nil, fmt.Errorf("checking report file %s: too many levels of symbolic links", path)
}

// dirError says in plain words why the directory of a target could not be
// resolved: "directory out does not exist", "notes is not a directory".
func dirError(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		switch {
		case errors.Is(pe.Err, fs.ErrNotExist):
			return fmt.Errorf("checking report file %s: directory %s does not exist", path, pe.Path)
		case errors.Is(pe.Err, syscall.ENOTDIR):
			return fmt.Errorf("checking report file %s: %s is not a directory", path, pe.Path)
		}
	}
	return fmt.Errorf("checking report file %s: directory: %w", path, err)
}

// splitLast splits p at its last separator, without cleaning: "a/../b"
// gives "a/.." and "b"; a name without a directory gets ".".
func splitLast(p string) (dir, base string) {
	i := strings.LastIndexByte(p, filepath.Separator)
	switch {
	case i < 0:
		return ".", p
	case i == 0:
		return string(filepath.Separator), p[1:]
	}
	return p[:i], p[i+1:]
}

// checkDir checks that the target's directory exists, is a directory and
// lies on a real file system.
func checkDir(path, dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("checking report file %s: directory: %w", path, err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("checking report file %s: %s is not a directory", path, dir)
	}
	if name, pseudo := pseudoFS(dir); pseudo {
		return fmt.Errorf("checking report file %s: %s is %w (%s)", path, dir, ErrPseudoFS, name)
	}
	return nil
}

// describe names a non-regular file mode for error messages.
func describe(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
