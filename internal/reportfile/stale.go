package reportfile

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// removeStale removes the temporary files that writers killed between
// creating and renaming them left beside target: names of exactly the
// pattern `<target>.<pid>.<random>.tmp`, regular files, whose pid is no
// running process. A name whose pid runs — another proxy writing the same
// file, or an unrelated process that reused a dead writer's pid — is kept:
// a leftover costs disk space, a removed live temporary file would cost
// that writer its next atomic replacement. Best effort: errors are ignored.
func removeStale(target string) {
	dir, base := filepath.Split(target)
	if dir == "" {
		dir = "."
	}
	d, err := os.Open(dir)
	if err != nil {
		return
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	self := os.Getpid()
	for _, name := range names {
		pid, ok := staleName(base, name)
		if !ok || pid == self || processExists(pid) {
			continue
		}
		p := filepath.Join(dir, name)
		if fi, err := os.Lstat(p); err == nil && fi.Mode().IsRegular() {
			_ = os.Remove(p)
		}
	}
}

// staleName reports whether name is a temporary name of a Writer for the
// file base — base + "." + pid + "." + random + ".tmp", pid a decimal
// number as strconv.Itoa writes it, random a base-36 number as
// strconv.FormatUint writes it — and returns the pid.
func staleName(base, name string) (int, bool) {
	rest, ok := strings.CutPrefix(name, base+".")
	if !ok || base == "" {
		return 0, false
	}
	rest, ok = strings.CutSuffix(rest, ".tmp")
	if !ok {
		return 0, false
	}
	pidText, random, ok := strings.Cut(rest, ".")
	if !ok || !canonicalNumber(pidText, "0123456789") || !canonicalNumber(random, "0123456789abcdefghijklmnopqrstuvwxyz") {
		return 0, false
	}
	pid, err := strconv.Atoi(pidText)
	if err != nil || pid <= 0 {
		return 0, false
	}
	return pid, true
}

// canonicalNumber reports whether s is a number of the given digits
// without a leading zero (or "0" itself).
func canonicalNumber(s, digits string) bool {
	if s == "" || (len(s) > 1 && s[0] == '0') {
		return false
	}
	for i := range len(s) {
		if strings.IndexByte(digits, s[i]) < 0 {
			return false
		}
	}
	return true
}
