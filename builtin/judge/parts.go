package judge

// inlineRun is the size below which an arena run is copied into the small
// pieces instead of being passed on by reference: each part costs the
// writer a system call, a short copy costs less.
const inlineRun = 8 << 10

// fileParts assembles the report file as a list of parts: small pieces
// (envelope, counters, cached small sections) encoded into one buffer, and
// the large runs of the arenas referenced where they are, so that writing
// a multi-megabyte report does not copy it first.
//
// The encoding code appends to a dst that is the small buffer and passes
// it through ref; finish returns the parts.
type fileParts struct {
	small []byte
	refs  []partRef
	start int // where the small piece being encoded starts
	out   [][]byte

	minRef int // runs this long are referenced; zero means inlineRun (tests lower it)
}

// partRef is one part: a referenced run, or small[from:to] when run is nil
// (small may still grow while it is encoded).
type partRef struct {
	run      []byte
	from, to int
}

// begin starts a new file and returns the dst to encode into.
func (f *fileParts) begin() []byte {
	clear(f.refs)
	f.refs, f.start = f.refs[:0], 0
	return f.small[:0]
}

// ref adds run after dst: copied into dst when short, else as a part of
// its own.
func (f *fileParts) ref(dst, run []byte) []byte {
	minRef := f.minRef
	if minRef == 0 {
		minRef = inlineRun
	}
	if len(run) < minRef {
		return append(dst, run...)
	}
	f.cut(len(dst))
	f.refs = append(f.refs, partRef{run: run})
	return dst
}

// cut ends the small piece being encoded at end.
func (f *fileParts) cut(end int) {
	if end > f.start {
		f.refs = append(f.refs, partRef{from: f.start, to: end})
		f.start = end
	}
}

// finish ends the file at the end of dst and returns its parts, valid
// until the next begin and as long as the arenas are not changed.
func (f *fileParts) finish(dst []byte) [][]byte {
	f.small = dst
	f.cut(len(dst))
	clear(f.out)
	f.out = f.out[:0]
	for _, r := range f.refs {
		if r.run == nil {
			r.run = dst[r.from:r.to]
		}
		f.out = append(f.out, r.run)
	}
	return f.out
}
