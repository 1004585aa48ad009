//go:build unix

package reportfile

import "syscall"

// directFlags keep the write in place from following a symlink swapped in
// for the target and from blocking on a FIFO.
const directFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
