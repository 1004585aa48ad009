package classify

// Explicit is the first stage of the chain: the user's --write-tools and
// --read-tools globs. A tool matching a --write-tools glob is a write, one
// matching a --read-tools glob a read.
//
// A tool matching both is a write: calling a read a write can at worst make a
// run FAIL or NOT_TESTED for a harmless repeat, while calling a write a read
// could hide a double execution and produce a wrong PASS, the worst outcome.
// It also makes the idiom `--read-tools '*' --write-tools 'book_*'` ("these are
// the writes, everything else reads") work. The reason names both globs.
type Explicit struct {
	write, read []Glob
}

// NewExplicit compiles the --write-tools and --read-tools globs. Either may
// be empty.
func NewExplicit(writeTools, readTools []string) *Explicit {
	return &Explicit{write: compileAll(writeTools), read: compileAll(readTools)}
}

func compileAll(patterns []string) []Glob {
	gs := make([]Glob, 0, len(patterns))
	for _, p := range patterns {
		gs = append(gs, CompileGlob(p))
	}
	return gs
}

// Classify implements Classifier.
func (e *Explicit) Classify(t Tool) (Result, bool) {
	w, wok := firstMatch(e.write, t.Name)
	r, rok := firstMatch(e.read, t.Name)
	switch {
	case wok && rok:
		return Result{Class: Write, Reason: "--write-tools glob " + w.String() +
			" (wins over --read-tools glob " + r.String() + ")"}, true
	case wok:
		return Result{Class: Write, Reason: "--write-tools glob " + w.String()}, true
	case rok:
		return Result{Class: Read, Reason: "--read-tools glob " + r.String()}, true
	}
	return Result{}, false
}

func firstMatch(gs []Glob, name string) (Glob, bool) {
	for _, g := range gs {
		if g.Match(name) {
			return g, true
		}
	}
	return Glob{}, false
}
