//go:build !linux

package proc

// FindProcesses without /proc: group m.Group counts while it exists — the
// answer is then -m.Group, which SignalAll signals as a group — and
// processes that left it cannot be found; ok is always false.
func FindProcesses(m Match) (pids []int, ok bool) {
	if m.Group > 0 && kill(-m.Group, 0) == nil {
		return []int{-m.Group}, false
	}
	return nil, false
}
