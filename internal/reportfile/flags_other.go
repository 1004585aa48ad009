//go:build !unix

package reportfile

// directFlags: no O_NOFOLLOW/O_NONBLOCK outside unix.
const directFlags = 0
