package canon

import (
	"sync"

	"github.com/cuonztech/agent-harness/internal/wire"
)

// Canonical returns the canonical JSON form of raw (see the package
// documentation), or a *SyntaxError when raw is not one valid JSON value.
func Canonical(raw []byte) ([]byte, error) {
	d := getDoc()
	defer putDoc(d)
	if err := d.parse(raw); err != nil {
		return nil, err
	}
	return d.AppendCanonical(make([]byte, 0, len(raw)), 0), nil
}

var docPool = sync.Pool{New: func() any { return new(Doc) }}

func getDoc() *Doc { return docPool.Get().(*Doc) }

// putDoc returns d to the pool unless it grew very large.
func putDoc(d *Doc) {
	d.raw = nil
	d.findClash, d.clashFound = false, false
	if cap(d.nodes) > 1<<16 || cap(d.arena) > 1<<20 {
		return
	}
	docPool.Put(d)
}

// frame is one open container while writing.
type frame struct {
	obj      bool
	first    bool
	cur, end int32 // arrays: next element and end; objects: range in members
	base     int32 // objects: start of this object's list in members
}

// AppendCanonical appends the canonical form of node n's subtree to dst.
func (d *Doc) AppendCanonical(dst []byte, n int) []byte {
	return d.appendCanonical(dst, n, nil)
}

// appendCanonical writes node n (not re-entrant: skip must not call back
// into the Doc's writer); when n is an object and skip is not nil,
// the members whose name node k skip reports true for are left out (top
// level only).
func (d *Doc) appendCanonical(dst []byte, n int, skip func(k int) bool) []byte {
	// members is a stack-disciplined arena of sorted member lists; both
	// scratch slices are kept in the Doc for reuse.
	members, stack := d.members[:0], d.frames[:0]
	defer func() { d.members, d.frames = members[:0], stack[:0] }()
	open := func(n int) {
		nd := &d.nodes[n]
		switch nd.kind {
		case Null:
			dst = append(dst, "null"...)
		case False:
			dst = append(dst, "false"...)
		case True:
			dst = append(dst, "true"...)
		case Number:
			dst = wire.AppendNumber(dst, d.raw[nd.start:nd.end])
		case String:
			dst = AppendString(dst, d.Str(n))
		case Array:
			dst = append(dst, '[')
			stack = append(stack, frame{cur: int32(n + 1), end: int32(nd.end), first: true})
		case Object:
			dst = append(dst, '{')
			start := len(members)
			members = d.Members(n, members)
			stack = append(stack, frame{obj: true, cur: int32(start), end: int32(len(members)), base: int32(start), first: true})
			if d.findClash && (skip == nil || len(stack) > 1) {
				d.checkClash(members[start:])
			}
		}
	}
	open(n)
	if skip != nil && len(stack) == 1 && stack[0].obj {
		f := &stack[0]
		w := f.cur
		for _, k := range members[f.cur:f.end] {
			if !skip(int(k)) {
				members[w] = k
				w++
			}
		}
		members = members[:w]
		f.end = w
		if d.findClash {
			d.checkClash(members[f.cur:f.end])
		}
	}
	for len(stack) > 0 {
		f := &stack[len(stack)-1]
		if f.cur == f.end {
			if f.obj {
				dst = append(dst, '}')
				// This object's list is the last one in members:
				// children truncate theirs when they close.
				members = members[:f.base]
			} else {
				dst = append(dst, ']')
			}
			stack = stack[:len(stack)-1]
			continue
		}
		if !f.first {
			dst = append(dst, ',')
		}
		f.first = false
		var v int
		if f.obj {
			k := int(members[f.cur])
			f.cur++
			dst = AppendString(dst, d.Str(k))
			dst = append(dst, ':')
			v = k + 1
		} else {
			v = int(f.cur)
			f.cur = int32(d.End(v))
		}
		open(v)
	}
	return dst
}
