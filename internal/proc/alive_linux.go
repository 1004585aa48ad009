package proc

import (
	"bytes"
	"os"
	"strconv"
)

// hasLiveMember scans /proc for a process of group pgid that is not a
// zombie. Without a readable /proc it answers true.
func hasLiveMember(pgid int) bool {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range entries {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, pg, ok := parseStat(stat)
		if ok && pg == pgid && state != 'Z' && state != 'X' {
			return true
		}
	}
	return false
}

// parseStat returns the state and process group from a /proc/PID/stat line:
// "pid (comm) state ppid pgrp ..."; comm may contain spaces and parentheses.
func parseStat(stat []byte) (state byte, pgrp int, ok bool) {
	state, _, pgrp, ok = statFields(stat)
	return state, pgrp, ok
}

// statFields returns the state, parent and process group from a
// /proc/PID/stat line.
func statFields(stat []byte) (state byte, ppid, pgrp int, ok bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, 0, 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 || len(fields[0]) != 1 {
		return 0, 0, 0, false
	}
	pp, err := strconv.Atoi(string(fields[1]))
	if err != nil {
		return 0, 0, 0, false
	}
	pg, err := strconv.Atoi(string(fields[2]))
	if err != nil {
		return 0, 0, 0, false
	}
	return fields[0][0], pp, pg, true
}
