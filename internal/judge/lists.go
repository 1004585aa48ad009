package judge

// category is a set of operations the verdict, the score and the patches
// need to name ("the first duplicate", "the first unverified ghost write").
// Each set is an intrusive doubly linked list in order of entry, so adding,
// removing and finding the first member are O(1) and deterministic.
type category int

const (
	catDuplicate   category = iota // executed two or more times
	catRetryAfter                  // re-sent before a 429's retry_after
	catGhostExtra                  // executed again after a ghost write was answered
	catIdemExtra                   // executed again without a ghost write before it
	catPossibleDup                 // a retry of an attempt with uncertain outcome
	catNearDup                     // POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS (live)
	catUnverified                  // UNVERIFIED_AFTER_TIMEOUT
	catAcrossProcs                 // REPEAT_ACROSS_UPSTREAM_PROCESSES
	catClientRetry                 // duplicate re-sent by the client library (CLIENT_RETRY)
	numCategories
)

type link struct {
	prev, next *operation
	in         bool
}

type opList struct {
	head, tail *operation
	n          int
}

func (l *opList) add(c category, op *operation) {
	k := &op.links[c]
	if k.in {
		return
	}
	k.in, k.prev, k.next = true, l.tail, nil
	if l.tail != nil {
		l.tail.links[c].next = op
	} else {
		l.head = op
	}
	l.tail = op
	l.n++
}

func (l *opList) remove(c category, op *operation) {
	k := &op.links[c]
	if !k.in {
		return
	}
	if k.prev != nil {
		k.prev.links[c].next = k.next
	} else {
		l.head = k.next
	}
	if k.next != nil {
		k.next.links[c].prev = k.prev
	} else {
		l.tail = k.prev
	}
	*k = link{}
	l.n--
}

func (l *opList) set(c category, op *operation, member bool) {
	if member {
		l.add(c, op)
	} else {
		l.remove(c, op)
	}
}
