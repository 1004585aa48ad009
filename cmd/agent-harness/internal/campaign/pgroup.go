package campaign

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// groupAlive reports whether process group pgid has a member that is not a
// zombie. Orphans of the group are reaped by PID 1, which may take its
// time (a second or more in some containers); a zombie runs no code, so it
// does not count. Without /proc (not Linux) any member counts.
func groupAlive(pgid int) bool {
	if syscall.Kill(-pgid, 0) != nil {
		return false
	}
	dir, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer dir.Close()
	names, err := dir.Readdirnames(-1)
	if err != nil {
		return true
	}
	for _, n := range names {
		if n[0] < '0' || n[0] > '9' {
			continue
		}
		stat, err := os.ReadFile("/proc/" + n + "/stat")
		if err != nil {
			continue
		}
		state, pgrp, ok := statFields(stat)
		if ok && pgrp == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// statFields reads the state and the process group from /proc/PID/stat:
// "pid (comm) state ppid pgrp …", where comm may contain anything.
func statFields(stat []byte) (state byte, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := bytes.Fields(stat[i+1:])
	if len(f) < 3 || len(f[0]) != 1 {
		return 0, 0, false
	}
	g, err := strconv.Atoi(string(f[2]))
	return f[0][0], g, err == nil
}
