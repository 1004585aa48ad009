package neardup

import (
	"bytes"
	"cmp"
	"fmt"
	"hash/maphash"
	"slices"

	"github.com/cuonztech/agent-harness/internal/canon"
	"github.com/cuonztech/agent-harness/internal/wire"
)

// MaxDepth is the nesting depth down to which values are compared under the
// similarity relation. Deeper values that are not canonically identical
// make the comparison undecided (when in doubt, NOT_TESTED): behaviour §4.6
// detects transformations at any depth.
const MaxDepth = 256

// Budget is the number of comparison steps one Similar call may take before
// its answer is undecided.
const Budget = 1 << 20

// maxExplained bounds the string pairs whose transformation kinds are
// worked out exactly (each costs four extra normalisations).
const maxExplained = 32

var seed = maphash.MakeSeed()

// Similar reports whether later differs from earlier only by the behaviour §4.6
// transformations (see the package documentation). Both are raw JSON, for
// example the canonical arguments with key fields stripped (canon.Op); key
// fields are not stripped here (CompareArgs does that). Similar is false
// when the comparison was undecided; use Compare to tell the difference.
func Similar(earlier, later []byte) bool {
	return compare(earlier, later, nil).Similar
}

// Compare is Similar with the details: whether the budget ran out and which
// transformation kinds were seen.
func Compare(earlier, later []byte) Result {
	return compare(earlier, later, nil)
}

// CompareArgs is Compare on full call arguments: top-level members whose
// names are key fields (kf) are ignored on both sides.
func CompareArgs(earlier, later []byte, kf canon.KeyFields) Result {
	return compare(earlier, later, func(name []byte) bool { return kf.Match(string(name)) })
}

// Result is the outcome of Compare.
type Result struct {
	// Similar: later differs from earlier only by behaviour §4.6
	// transformations (or not at all).
	Similar bool
	// Undecided: the comparison ran out of budget (very large, reordered
	// and modified arrays), or the values might be similar but differ
	// deeper than MaxDepth; Similar is false. Callers should treat it as
	// a possible duplicate: when in doubt, NOT_TESTED.
	Undecided bool
	// TooDeep: undecided because values deeper than MaxDepth differ.
	TooDeep bool
	// Invalid: the inputs differ and one of them is not valid JSON.
	// Callers should treat it as a possible duplicate too.
	Invalid bool
	kinds   kind
}

// Kinds lists the transformation kinds seen on a similar pair,
// comma-separated in a fixed order ("letter case, white space"); empty when
// the inputs are the same JSON value up to key order and number notation.
// String kinds are worked out exactly for the first 32 differing strings.
func (r Result) Kinds() string { return r.kinds.String() }

// Reason is one sentence for the report, naming tool: why the later call
// may be the same operation, or "" when it is not similar.
func (r Result) Reason(tool string) string {
	switch {
	case r.TooDeep:
		return fmt.Sprintf("the arguments of %s differ at a nesting depth beyond %d, deeper than they are compared; treated as possibly the same operation", tool, MaxDepth)
	case r.Undecided:
		return fmt.Sprintf("the arguments of %s are too large to compare within %d steps; treated as possibly the same operation", tool, Budget)
	case r.Invalid:
		return fmt.Sprintf("the arguments of %s are not valid JSON, so they cannot be compared; treated as possibly the same operation", tool)
	case !r.Similar:
		return ""
	case r.kinds == 0:
		return fmt.Sprintf("the arguments of %s are the same apart from key fields and notation", tool)
	default:
		return fmt.Sprintf("the arguments of %s differ only by %s (docs/behaviour.md §4.6)", tool, r.kinds)
	}
}

// compare compares a and b; skip, when not nil, says which top-level member
// names to ignore (key fields).
func compare(a, b []byte, skip func(name []byte) bool) Result {
	if bytes.Equal(a, b) {
		return Result{Similar: true}
	}
	if bytes.Compare(a, b) > 0 {
		a, b = b, a // a fixed orientation makes the relation symmetric
	}
	da, err := canon.Parse(a)
	if err != nil {
		return Result{Invalid: true}
	}
	db, err := canon.Parse(b)
	if err != nil {
		return Result{Invalid: true}
	}
	c := &comparer{a: newSide(da), b: newSide(db), budget: Budget, skip: skip}
	ok, k := c.sim(0, 0, 0)
	switch {
	case c.budget < 0:
		return Result{Undecided: true}
	case ok && c.tooDeep:
		// Similar down to MaxDepth, and deeper values that differ were
		// assumed similar: they may or may not be.
		return Result{Undecided: true, TooDeep: true}
	}
	return Result{Similar: ok, kinds: k}
}

// side is one parsed input with its per-node hashes.
type side struct {
	d       *canon.Doc
	exact   []uint64 // hash of the canonical form of each node's subtree
	loose   []uint64 // looseHash per node, 0 = not computed yet
	inv     []uint64 // invariant per node, 0 = not computed yet
	num     []byte   // scratch
	members []int32  // sorted member names of all objects
	mOff    []int32  // per object node: offset in members; count in mLen
	mLen    []int32
	normIdx []int32        // per node: 1 + index in normVal, 0 = not computed
	normVal []normStr      // normalised strings, in arena
	dates   []dateReadings // readings of the normalised strings that are dates
	arena   []byte
}

func newSide(d *canon.Doc) *side {
	n := d.Len()
	s := &side{d: d, exact: make([]uint64, n), mOff: make([]int32, n), mLen: make([]int32, n)}
	// Children follow their parent, so a reverse pass sees them first.
	// Scalars are hashed with a per-process random seed; containers
	// combine their children's hashes with a bijective mixer, so crafted
	// collisions would need the seed.
	for i := n - 1; i >= 0; i-- {
		k := d.Kind(i)
		var h uint64
		switch k {
		case canon.Number:
			s.num = wire.AppendNumber(s.num[:0], d.NumberText(i))
			h = maphash.Bytes(seed, s.num)
		case canon.String:
			h = maphash.Bytes(seed, d.Str(i))
		case canon.Array:
			for c := i + 1; c < d.End(i); c = d.End(c) {
				h = mix(h + s.exact[c])
			}
		case canon.Object:
			off := len(s.members)
			s.members = d.Members(i, s.members)
			s.mOff[i], s.mLen[i] = int32(off), int32(len(s.members)-off)
			for _, m := range s.members[off:] {
				h = mix(mix(h+s.exact[m]) + s.exact[m+1])
			}
		}
		s.exact[i] = mix(h ^ uint64(k)<<56 ^ 0x9e3779b97f4a7c15)
	}
	return s
}

func (s *side) memberList(n int) []int32 {
	return s.members[s.mOff[n] : s.mOff[n]+s.mLen[n]]
}

// norm returns the normalisation of string node n; the view is valid until
// the next call of norm on s.
func (s *side) norm(n int) normView {
	if s.normIdx == nil {
		s.normIdx = make([]int32, s.d.Len())
	}
	if i := s.normIdx[n]; i != 0 {
		return s.normVal[i-1].view(s.arena, s.dates)
	}
	var ns normStr
	s.arena, ns = appendNormStr(s.arena, s.d.Str(n), &s.dates)
	s.normVal = append(s.normVal, ns)
	s.normIdx[n] = int32(len(s.normVal))
	return ns.view(s.arena, s.dates)
}

// looseHash hashes the normalised form of node n: similar scalars and
// objects with the same member names and similar values (mostly) collide;
// arrays hash their elements order-independently. It is only a bucketing
// aid: every candidate pair is checked with sim.
func (s *side) looseHash(n, depth int) uint64 {
	return s.hash2(n, depth, &s.loose, false)
}

// invariant hashes what similar values must share: scalars as in
// looseHash (similar scalars always collide), arrays as the multiset of
// their elements' invariants, all objects alike (the half rule allows
// nearly anything). Similar values always have equal invariants, so a
// difference rejects a pair at once (nested arrays whose leaves differ).
func (s *side) invariant(n, depth int) uint64 {
	return s.hash2(n, depth, &s.inv, true)
}

// emptyish is the invariant shared by all objects, null and the strings
// that normalise to "": null ≈ "" and an object whose members are all
// empty ≈ null (behaviour §4.6).
var emptyish = mix('O') | 1

// dateInvariant is the invariant of every string that reads as a date.
var dateInvariant = mix('D') | 1

func (s *side) hash2(n, depth int, memo *[]uint64, objectsAlike bool) uint64 {
	if depth > MaxDepth {
		// Beyond MaxDepth values are not compared, only assumed similar
		// (the comparison is then undecided): all alike.
		return emptyish
	}
	if *memo == nil {
		*memo = make([]uint64, s.d.Len())
	}
	if v := (*memo)[n]; v != 0 {
		return v
	}
	var h uint64
	switch k := s.d.Kind(n); k {
	case canon.Null:
		if objectsAlike {
			return s.memoize(memo, n, emptyish)
		}
		h = maphash.String(seed, "S")
	case canon.Number:
		s.num = wire.AppendNumber(append(s.num[:0], 'N'), s.d.NumberText(n))
		h = maphash.Bytes(seed, s.num)
	case canon.String:
		if ns := s.norm(n); ns.num != nil {
			s.num = append(append(s.num[:0], 'N'), ns.num...)
			h = maphash.Bytes(seed, s.num)
		} else if objectsAlike && len(ns.s) == 0 {
			return s.memoize(memo, n, emptyish)
		} else if ns.dates != nil && objectsAlike {
			// Date readings chain across days (an instant in two
			// offsets, a slash date read both ways), so all dates
			// share one invariant.
			return s.memoize(memo, n, dateInvariant)
		} else if ns.dates != nil {
			// Bucketing only: a date in another notation with the
			// same first reading lands in the same bucket.
			s.num = ns.dates.r[0].appendKey(append(s.num[:0], 'D'))
			h = maphash.Bytes(seed, s.num)
		} else {
			s.num = append(append(s.num[:0], 'S'), ns.s...)
			h = maphash.Bytes(seed, s.num)
		}
	case canon.Array:
		var sum uint64
		cnt := uint64(0)
		for c := n + 1; c < s.d.End(n); c = s.d.End(c) {
			sum += mix(s.hash2(c, depth+1, memo, objectsAlike))
			cnt++
		}
		h = mix(mix(sum+cnt) ^ 'A')
	case canon.Object:
		if objectsAlike {
			return s.memoize(memo, n, emptyish)
		}
		for _, m := range s.memberList(n) {
			h = mix(mix(h+s.exact[m]) + s.hash2(int(m)+1, depth+1, memo, objectsAlike))
		}
		h = mix(h ^ 'O')
	default:
		return s.exact[n]
	}
	return s.memoize(memo, n, h|1) // never 0, the "not computed" mark
}

func (s *side) memoize(memo *[]uint64, n int, h uint64) uint64 {
	(*memo)[n] = h
	return h
}

// isEmpty reports whether node n is null or a string that normalises to ""
// (empty, white space or invisible characters only).
func (s *side) isEmpty(n int) bool {
	switch s.d.Kind(n) {
	case canon.Null:
		return true
	case canon.String:
		return len(s.norm(n).s) == 0
	}
	return false
}

// allEmpty reports whether every member of the member list ms has an
// empty value (isEmpty); true for no members.
func (s *side) allEmpty(ms []int32) bool {
	for _, m := range ms {
		if !s.isEmpty(int(m) + 1) {
			return false
		}
	}
	return true
}

func mix(x uint64) uint64 {
	x ^= x >> 33
	x *= 0xff51afd7ed558ccd
	x ^= x >> 33
	x *= 0xc4ceb9fe1a85ec53
	x ^= x >> 33
	return x
}

// comparer holds the state of one comparison.
type comparer struct {
	a, b      *side
	budget    int
	explained int
	tooDeep   bool // values deeper than MaxDepth differed
	skip      func(name []byte) bool
	pairs     [][2]int32 // scratch stack for objects
}

// sim reports whether node x of a and node y of b are similar, and the
// transformation kinds seen when they are.
func (c *comparer) sim(x, y, depth int) (bool, kind) {
	kx, ky := c.a.d.Kind(x), c.b.d.Kind(y)
	// With key fields to skip, top-level objects must be compared member
	// by member even when their hashes differ only by those fields.
	skipTop := depth == 0 && c.skip != nil && kx == canon.Object && ky == canon.Object
	if !skipTop && c.a.exact[x] == c.b.exact[y] {
		return true, 0
	}
	c.budget--
	if c.budget < 0 {
		return false, 0
	}
	if depth > MaxDepth {
		// Not compared: assumed similar, and the answer becomes
		// undecided if the whole comparison says similar.
		c.tooDeep = true
		return true, 0
	}
	if !skipTop && c.a.invariant(x, depth) != c.b.invariant(y, depth) {
		return false, 0
	}
	switch {
	case kx == canon.Array && ky == canon.Array:
		return c.arrays(x, y, depth)
	case kx == canon.Object && ky == canon.Object:
		return c.objects(x, y, depth)
	case kx == canon.Object && ky == canon.Null:
		return c.a.allEmpty(c.members(c.a, x, depth)), kindNullEmpty
	case kx == canon.Null && ky == canon.Object:
		return c.b.allEmpty(c.members(c.b, y, depth)), kindNullEmpty
	}
	return c.scalars(x, kx, y, ky)
}

func (c *comparer) scalars(x int, kx canon.Kind, y int, ky canon.Kind) (bool, kind) {
	switch {
	case kx == canon.String && ky == canon.String:
		nx, ny := c.a.norm(x), c.b.norm(y)
		if bytes.Equal(nx.s, ny.s) {
			if c.explained < maxExplained {
				c.explained++
				return true, stringKinds(c.a.d.Str(x), c.b.d.Str(y))
			}
			return true, 0
		}
		if nx.plain && ny.plain && bytes.Equal(nx.num, ny.num) {
			return true, kindDecimal
		}
		if nx.dates != nil && ny.dates != nil && nx.dates.match(ny.dates) {
			return true, kindDate
		}
	case kx == canon.Number && ky == canon.String:
		ny := c.b.norm(y)
		c.a.num = wire.AppendNumber(c.a.num[:0], c.a.d.NumberText(x))
		return ny.num != nil && bytes.Equal(c.a.num, ny.num), kindNumberString
	case kx == canon.String && ky == canon.Number:
		nx := c.a.norm(x)
		c.b.num = wire.AppendNumber(c.b.num[:0], c.b.d.NumberText(y))
		return nx.num != nil && bytes.Equal(c.b.num, nx.num), kindNumberString
	case kx == canon.Null && ky == canon.String:
		return len(c.b.norm(y).s) == 0, kindNullEmpty
	case kx == canon.String && ky == canon.Null:
		return len(c.a.norm(x).s) == 0, kindNullEmpty
	}
	return false, 0
}

// objects applies the member rules: same names → all values similar;
// different names → at least one shared name and at least half of the
// shared values similar.
func (c *comparer) objects(x, y, depth int) (bool, kind) {
	ma, mb := c.members(c.a, x, depth), c.members(c.b, y, depth)
	// The shared members go on the scratch stack; nested calls push
	// above them and truncate back, so index from base, never hold a slice.
	base := len(c.pairs)
	defer func() { c.pairs = c.pairs[:base] }()
	i, j := 0, 0
	for i < len(ma) && j < len(mb) {
		switch bytes.Compare(c.a.d.Str(int(ma[i])), c.b.d.Str(int(mb[j]))) {
		case 0:
			c.pairs = append(c.pairs, [2]int32{ma[i] + 1, mb[j] + 1})
			i++
			j++
		case -1:
			i++
		default:
			j++
		}
	}
	shared := len(c.pairs) - base
	sameNames := shared == len(ma) && shared == len(mb)
	var k kind
	if !sameNames {
		if shared == 0 {
			// {"note":null} ≈ {}: members that carry nothing.
			return c.a.allEmpty(ma) && c.b.allEmpty(mb), kindFields
		}
		k = kindFields
	}
	equal, failed := 0, 0
	for q := range shared {
		p := c.pairs[base+q]
		ok, pk := c.sim(int(p[0]), int(p[1]), depth+1)
		if ok {
			equal++
			k |= pk
			if !sameNames && 2*equal >= shared {
				return true, k
			}
		} else {
			failed++
			if sameNames || 2*failed > shared {
				return false, 0
			}
		}
	}
	return true, k
}

// members returns the member names of object n of side s, without the key
// fields at the top level.
func (c *comparer) members(s *side, n, depth int) []int32 {
	ms := s.memberList(n)
	if depth == 0 && c.skip != nil {
		ms = c.filter(s, ms)
	}
	return ms
}

func (c *comparer) filter(s *side, ms []int32) []int32 {
	var out []int32
	for _, m := range ms {
		if !c.skip(s.d.Str(int(m))) {
			out = append(out, m)
		}
	}
	return out
}

// arrays pairs the elements of two arrays of the same length in stages
// (see the package documentation).
func (c *comparer) arrays(x, y, depth int) (bool, kind) {
	ea := c.a.d.Elems(x, nil)
	eb := c.b.d.Elems(y, nil)
	if len(ea) != len(eb) {
		return false, 0
	}
	m := arrayMatch{c: c, ea: ea, eb: eb, depth: depth,
		doneA: make([]bool, len(ea)), doneB: make([]bool, len(eb)), left: len(ea)}
	// (1) identical at the same position.
	for i := range ea {
		if c.a.exact[ea[i]] == c.b.exact[eb[i]] {
			m.doneA[i], m.doneB[i] = true, true
			m.left--
		}
	}
	for _, stage := range []func() bool{m.identical, m.normalised, m.positional, m.greedy} {
		if m.left == 0 {
			return true, m.k
		}
		if !stage() {
			return false, 0
		}
	}
	return m.left == 0, m.k
}

// arrayMatch is the state of pairing two arrays' elements. Every pair of
// elements is compared at most once (tried remembers failures), so the
// work for a pair of arrays is at most n·m comparisons, and nested arrays
// stay polynomial.
type arrayMatch struct {
	c            *comparer
	ea, eb       []int32
	depth        int
	doneA, doneB []bool
	left         int
	k            kind
	tried        map[[2]int32]bool // failed pairs
}

func (m *arrayMatch) pair(i, j int, pk kind) {
	m.doneA[i], m.doneB[j] = true, true
	m.left--
	m.k |= pk
	if i != j {
		m.k |= kindOrder
	}
}

// try compares element i of a with element j of b once; it returns false
// also when the budget ran out (check m.c.budget).
func (m *arrayMatch) try(i, j int) bool {
	key := [2]int32{int32(i), int32(j)}
	if m.tried[key] {
		return false
	}
	ok, pk := m.c.sim(int(m.ea[i]), int(m.eb[j]), m.depth+1)
	if ok {
		m.pair(i, j, pk)
		return true
	}
	if m.c.a.d.Kind(int(m.ea[i])) >= canon.Array {
		// Only container pairs are worth remembering: retrying scalars
		// is as cheap as looking them up.
		if m.tried == nil {
			m.tried = make(map[[2]int32]bool)
		}
		m.tried[key] = true
	}
	return false
}

type hashed struct {
	h uint64
	i int32
}

// sorted returns the undone elements with their hashes, sorted by hash then
// index.
func sorted(s *side, es []int32, done []bool, left int, h func(int) uint64) []hashed {
	out := make([]hashed, 0, left)
	for i, e := range es {
		if !done[i] {
			out = append(out, hashed{h(int(e)), int32(i)})
		}
	}
	slices.SortFunc(out, func(p, q hashed) int {
		if p.h != q.h {
			return cmp.Compare(p.h, q.h)
		}
		return cmp.Compare(p.i, q.i)
	})
	return out
}

// groups calls f for each run of equal hashes present in both ha and hb;
// f returns false to stop.
func groups(ha, hb []hashed, f func(ga, gb []hashed) bool) bool {
	for p, q := 0, 0; p < len(ha) && q < len(hb); {
		switch {
		case ha[p].h < hb[q].h:
			p++
		case ha[p].h > hb[q].h:
			q++
		default:
			h := ha[p].h
			p2, q2 := p, q
			for p2 < len(ha) && ha[p2].h == h {
				p2++
			}
			for q2 < len(hb) && hb[q2].h == h {
				q2++
			}
			if !f(ha[p:p2], hb[q:q2]) {
				return false
			}
			p, q = p2, q2
		}
	}
	return true
}

// identical is stage (2): identical elements anywhere, by canonical hash.
func (m *arrayMatch) identical() bool {
	a, b := m.c.a, m.c.b
	ha := sorted(a, m.ea, m.doneA, m.left, func(e int) uint64 { return a.exact[e] })
	hb := sorted(b, m.eb, m.doneB, m.left, func(e int) uint64 { return b.exact[e] })
	groups(ha, hb, func(ga, gb []hashed) bool {
		for x := range min(len(ga), len(gb)) {
			m.pair(int(ga[x].i), int(gb[x].i), 0)
		}
		return true
	})
	return true
}

// normalised is stage (3): elements with equal normalised hashes are
// candidates, checked with sim.
func (m *arrayMatch) normalised() bool {
	a, b := m.c.a, m.c.b
	d := m.depth + 1
	ha := sorted(a, m.ea, m.doneA, m.left, func(e int) uint64 { return a.looseHash(e, d) })
	hb := sorted(b, m.eb, m.doneB, m.left, func(e int) uint64 { return b.looseHash(e, d) })
	return groups(ha, hb, func(ga, gb []hashed) bool {
		for _, pa := range ga {
			for _, pb := range gb {
				if m.doneB[pb.i] {
					continue
				}
				if m.try(int(pa.i), int(pb.i)) {
					break
				}
				if m.c.budget < 0 {
					return false
				}
			}
		}
		return true
	})
}

// positional is stage (4): similar elements at the same position.
func (m *arrayMatch) positional() bool {
	for i := range m.ea {
		if !m.doneA[i] && !m.doneB[i] {
			m.try(i, i)
			if m.c.budget < 0 {
				return false
			}
		}
	}
	return true
}

// greedy is stage (5): first fit over what is left; every element of a must
// find a partner.
func (m *arrayMatch) greedy() bool {
	restB := make([]int, 0, m.left)
	for j := range m.eb {
		if !m.doneB[j] {
			restB = append(restB, j)
		}
	}
	for i := range m.ea {
		if m.doneA[i] {
			continue
		}
		found := -1
		for x, j := range restB {
			if m.try(i, j) {
				found = x
				break
			}
			if m.c.budget < 0 {
				return false
			}
		}
		if found < 0 {
			return false
		}
		restB = slices.Delete(restB, found, found+1)
	}
	return true
}
