//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package main

import "os"

// isTTY reports false where the proxy does not check: the hint for a
// proxy started in a terminal is only a hint.
func isTTY(*os.File) bool { return false }
