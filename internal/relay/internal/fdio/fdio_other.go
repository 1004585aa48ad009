//go:build !linux

package fdio

import "os"

// TryWriter returns nil: non-blocking writes are implemented for Linux only.
func TryWriter(f *os.File) func(p []byte) (int, error) { return nil }
