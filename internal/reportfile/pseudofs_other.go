//go:build !linux

package reportfile

// pseudoFS reports whether dir is on a kernel pseudo file system; only
// Linux is checked.
func pseudoFS(string) (string, bool) { return "", false }
