package judge

// Compaction thresholds of an arena: it is rebuilt in entry order when more
// than arenaMaxMoves entries were moved out of order since the last
// rebuild, or when dead bytes exceed both arenaMinDead and the live bytes.
// Tests lower them through the arena's fields.
const (
	arenaMaxMoves = 64
	arenaMinDead  = 64 << 10
)

// span locates one entry's encoding in an arena's buffer; n == 0 is an
// entry that writes nothing (its off is meaningless then).
type span struct{ off, n int }

// arena keeps the encodings of a sequence of report entries (one report
// section of every operation in order of first attempt, or the keySummary
// entries) in one buffer, so AppendFile copies a section as a few large
// runs instead of thousands of small slices scattered over the heap (after
// the kernel's copy of a megabyte-sized report file, those cost a cache
// miss each). Measured in issue 10 (BENCHMARKS.md): at 5,000 operations
// the proxy's report writes cost 1.43–1.77 × the file-system floor without
// arenas, 1.13–1.28 × with them.
//
// Every non-empty encoding starts with a comma; appendTo drops the comma of
// the first entry it writes. An entry whose new encoding has the same size
// is rewritten in place, the entry at the end of the buffer is rewritten at
// the end (the usual case: the newest operation changes), and any other is
// appended to the buffer, leaving its old bytes dead and the buffer out of
// entry order. compact restores the order and drops dead bytes; it runs
// when moves or dead bytes pile up, so its cost is amortised over the
// changes that made it necessary.
type arena struct {
	buf   []byte
	spare []byte // the buffer before the last compaction, reused by the next
	spans []span // by entry index
	dead  int    // bytes of buf that no span covers
	moves int    // entries appended out of order since the last compaction

	maxMoves, minDead int // thresholds; zero means the package defaults
}

// set replaces the encoding of entry i (nil or empty: the entry writes
// nothing). enc must start with a comma when non-empty.
func (a *arena) set(i int, enc []byte) {
	for len(a.spans) <= i {
		a.spans = append(a.spans, span{off: len(a.buf)})
	}
	s := &a.spans[i]
	switch {
	case len(enc) == s.n:
		copy(a.buf[s.off:s.off+s.n], enc)
	case s.off+s.n == len(a.buf):
		a.buf = append(a.buf[:s.off], enc...)
		s.n = len(enc)
	default:
		a.dead += s.n
		a.moves++
		s.off, s.n = len(a.buf), len(enc)
		a.buf = append(a.buf, enc...)
	}
}

// needsCompaction reports whether moves or dead bytes exceed the
// thresholds.
func (a *arena) needsCompaction() bool {
	maxMoves, minDead := a.maxMoves, a.minDead
	if maxMoves == 0 {
		maxMoves = arenaMaxMoves
	}
	if minDead == 0 {
		minDead = arenaMinDead
	}
	return a.moves > maxMoves || (a.dead > minDead && a.dead > len(a.buf)-a.dead)
}

// compact rewrites the buffer in entry order without dead bytes.
func (a *arena) compact() {
	nb := a.spare[:0]
	for i := range a.spans {
		s := &a.spans[i]
		off := len(nb)
		nb = append(nb, a.buf[s.off:s.off+s.n]...)
		s.off = off
	}
	a.spare, a.buf = a.buf[:0], nb
	a.dead, a.moves = 0, 0
}

// emit appends the entries in index order, comma-separated, to dst: one
// copy per run of entries that lie next to each other in the buffer.
// *first says whether nothing was written to the enclosing JSON array yet;
// it is cleared when an entry is written.
func (a *arena) emit(dst []byte, first *bool) []byte {
	start, end := 0, -1
	for _, s := range a.spans {
		if s.n == 0 {
			continue
		}
		if s.off == end {
			end += s.n
			continue
		}
		if end >= 0 {
			dst = a.run(dst, start, end, first)
		}
		start, end = s.off, s.off+s.n
	}
	if end >= 0 {
		dst = a.run(dst, start, end, first)
	}
	return dst
}

// run appends buf[from:to], without its leading comma when it is the first
// entry of the array.
func (a *arena) run(dst []byte, from, to int, first *bool) []byte {
	if *first {
		from++
		*first = false
	}
	return append(dst, a.buf[from:to]...)
}
