package canon

import (
	"bytes"
	"unicode"
	"unicode/utf8"
)

// maxPairwise is the member count up to which an object's names are
// compared pair by pair; larger objects use a map of folded names.
const maxPairwise = 16

// checkClash looks for a case clash among the member names of one object
// (sorted, byte-identical duplicates removed, as Members gives them) and
// records the first one found in d.clash.
func (d *Doc) checkClash(names []int32) {
	if len(names) < 2 || d.clashFound {
		return
	}
	var a, b int
	if len(names) <= maxPairwise {
		a, b, d.clashFound = d.clashPairwise(names)
	} else {
		a, b, d.clashFound = d.clashFolded(names)
	}
	if d.clashFound {
		d.clash = [2]int32{int32(a), int32(b)}
	}
}

// clashPairwise compares every pair of names; ASCII names of different
// lengths or first letters cannot fold to each other, which rejects most
// pairs at once. The pair is returned in document order.
func (d *Doc) clashPairwise(names []int32) (int, int, bool) {
	for x := 1; x < len(names); x++ {
		nx := &d.nodes[names[x]]
		var sx []byte
		for y := range x {
			ny := &d.nodes[names[y]]
			if nx.ascii && ny.ascii && nx.end-nx.start != ny.end-ny.start {
				continue
			}
			if sx == nil {
				sx = d.Str(int(names[x]))
			}
			sy := d.Str(int(names[y]))
			if nx.ascii && ny.ascii && len(sx) > 0 && sx[0]|0x20 != sy[0]|0x20 {
				continue // ASCII bytes that fold alike are equal with bit 5 set
			}
			if !bytes.Equal(sx, sy) && bytes.EqualFold(sx, sy) {
				return int(min(names[x], names[y])), int(max(names[x], names[y])), true
			}
		}
	}
	return 0, 0, false
}

// clashFolded finds a clash with a map from folded name (every rune
// replaced by the smallest rune of its simple case-folding orbit, so two
// names fold alike exactly when bytes.EqualFold holds) to name node.
func (d *Doc) clashFolded(names []int32) (int, int, bool) {
	fold := make(map[string]int32, len(names))
	var key []byte
	for _, c := range names {
		s := d.Str(int(c))
		key = key[:0]
		for i := 0; i < len(s); {
			r, size := utf8.DecodeRune(s[i:])
			i += size
			m := r
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				m = min(m, f)
			}
			key = utf8.AppendRune(key, m)
		}
		if prev, seen := fold[string(key)]; seen {
			return int(min(prev, c)), int(max(prev, c)), true
		}
		fold[string(key)] = c
	}
	return 0, 0, false
}
