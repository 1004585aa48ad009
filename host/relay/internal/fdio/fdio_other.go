//go:build !linux

package fdio

import "os"

// File is not available on this system: New always reports false and the
// relay uses *os.File directly.
type File struct{ *os.File }

// New reports false: raw I/O is implemented for Linux only.
func New(f *os.File) (_ *File, ok bool) { return nil, false }

// TryWrite is never called: New reports false.
func (x *File) TryWrite(p []byte) (int, error) { return x.Write(p) }

// TryWriter returns nil: non-blocking writes are implemented for Linux only.
func TryWriter(f *os.File) func(p []byte) (int, error) { return nil }
