//go:build !unix

package relay

import "os"

// nonblockingDup switches nothing where there is no fcntl(2) (Windows): f
// is read as it is.
func nonblockingDup(f *os.File) (nf *os.File, release func()) { return nil, func() {} }
