//go:build !linux

package fdio

import "os"

// File is not available on this system: New always reports false and the
// relay uses *os.File directly.
type File struct{ *os.File }

// New reports false: raw I/O is implemented for Linux only.
func New(f *os.File) (_ *File, ok bool) { return nil, false }
