//go:build !unix

package peerfile

import "os"

// openNonBlocking opens path for reading (no FIFOs to block on here).
func openNonBlocking(path string) (*os.File, error) { return os.Open(path) }
