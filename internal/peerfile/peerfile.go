// Package peerfile reads files that a peer — the agent under test — wrote
// (a claim file, a transcript): only regular files, at most a given size,
// so a FIFO, a device or a symlink to one can neither block the reader nor
// feed it without end (RELIABILITY.md, "Hostile files from the agent").
package peerfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrTooLarge is returned by Read for a file larger than its limit.
var ErrTooLarge = errors.New("too large")

// Read returns the contents of the regular file at path, at most max
// bytes (ErrTooLarge beyond). A path that is not a regular file — after
// symlinks: a FIFO, a socket, a device, a directory — is an error before
// it is opened, and again after (the file opened without blocking, in case
// it was replaced in between). A missing file is an fs.ErrNotExist error.
func Read(path string, max int64) ([]byte, error) {
	if err := regular(os.Stat(path)); err != nil {
		return nil, err
	}
	f, err := openNonBlocking(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := regular(f.Stat()); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > max {
		return nil, ErrTooLarge
	}
	return data, nil
}

func regular(fi fs.FileInfo, err error) error {
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("not a regular file (%s)", fi.Mode().Type())
	}
	return nil
}
