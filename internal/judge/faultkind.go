package judge

import (
	"slices"
	"strings"
)

// faultTimeout is the fault kind of the F1 timeout, the ghost write behaviour
// §6 words its GHOST_WRITE and VERIFICATION patches for.
const faultTimeout = "timeout"

// faultPhrase names the injected failure answer of a ghost write (executed,
// but the agent saw a failure) as the messages say it: "a timeout" for F1,
// otherwise "an injected failure answer (KIND)", e.g. a plugin's
// "partial_success".
func faultPhrase(kind string) string {
	switch kind {
	case faultTimeout:
		return "a timeout"
	case "":
		return "an injected failure answer"
	}
	return "an injected failure answer (" + kind + ")"
}

// faultTally counts ghost extras (or unverified ghost writes) per fault
// kind, so a patch trigger can name the kinds it covers. gen changes with
// every change, so report-file caches can key on it.
type faultTally struct {
	n   map[string]int
	gen uint64
}

// add adds d (possibly negative) to kind's count.
func (t *faultTally) add(kind string, d int) {
	if d == 0 {
		return
	}
	if t.n == nil {
		t.n = map[string]int{}
	}
	t.n[kind] += d
	if t.n[kind] == 0 {
		delete(t.n, kind)
	}
	t.gen++
}

// move replaces a contribution of oldN under oldKind by newN under newKind.
func (t *faultTally) move(oldKind string, oldN int, newKind string, newN int) {
	if oldKind == newKind {
		t.add(newKind, newN-oldN)
		return
	}
	t.add(oldKind, -oldN)
	t.add(newKind, newN)
}

// onlyTimeout reports whether every counted ghost write was an F1 timeout.
func (t *faultTally) onlyTimeout() bool {
	for k := range t.n {
		if k != faultTimeout {
			return false
		}
	}
	return true
}

// patchText is a patch's text: base, and other after it when a counted
// kind is not an F1 timeout.
func (t *faultTally) patchText(base, other string) string {
	if t.onlyTimeout() {
		return base
	}
	return base + other
}

// phrase names the counted kinds: "a timeout", "an injected failure answer
// (partial_success)", or "a timeout or an injected failure answer (a, b)"
// (kinds in byte order).
func (t *faultTally) phrase() string {
	var others []string
	timeout := false
	for k := range t.n {
		if k == faultTimeout {
			timeout = true
		} else {
			others = append(others, k)
		}
	}
	if len(others) == 0 {
		return faultPhrase(faultTimeout)
	}
	slices.Sort(others)
	p := faultPhrase(strings.Join(others, ", "))
	if timeout {
		p = faultPhrase(faultTimeout) + " or " + p
	}
	return p
}
