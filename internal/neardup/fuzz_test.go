package neardup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
	"golang.org/x/text/unicode/norm"
)

func FuzzSimilar(f *testing.F) {
	for _, tc := range similarCases {
		f.Add([]byte(tc.earlier), []byte(tc.later))
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		ab := compare(a, b, nil)
		ba := compare(b, a, nil)
		if ab != ba {
			t.Fatalf("not symmetric: %q vs %q: %+v / %+v", a, b, ab, ba)
		}
		if !compare(a, a, nil).Similar || !compare(b, b, nil).Similar {
			t.Fatalf("not reflexive")
		}
		if !json.Valid(a) || !json.Valid(b) {
			return
		}
		// Canonically equal values are always similar.
		ca, errA := canon.Canonical(a)
		cb, errB := canon.Canonical(b)
		if errA == nil && errB == nil {
			if string(ca) == string(cb) && !ab.Similar {
				t.Fatalf("canonically equal but not similar: %q vs %q", a, b)
			}
			if !Similar(a, ca) {
				t.Fatalf("not similar to its canonical form: %q vs %q", a, ca)
			}
		}
	})
}

// transform rewrites node n of d with behaviour §4.6 transformations chosen by
// the bits of ops, so the result must stay similar to the input.
func transform(dst []byte, d *canon.Doc, n, depth int, ops []byte) []byte {
	op := byte(0)
	if len(ops) > 0 {
		op = ops[(n+depth)%len(ops)]
	}
	if depth > 200 {
		return d.AppendCanonical(dst, n)
	}
	switch d.Kind(n) {
	case canon.Null:
		if op&1 != 0 {
			return append(dst, `""`...)
		}
		return append(dst, "null"...)
	case canon.True, canon.False:
		return d.AppendCanonical(dst, n)
	case canon.Number:
		if op&1 != 0 {
			return canon.AppendString(dst, d.NumberText(n))
		}
		return append(dst, d.NumberText(n)...)
	case canon.String:
		s := d.Str(n)
		if op%5 != 0 {
			// Transform the text; lone surrogates and invalid bytes
			// compare as U+FFFD, so replacing them keeps similarity.
			s = canon.AppendValid(nil, s)
		}
		switch op % 5 {
		case 1:
			s = bytes.ToUpper(s) // ASCII letters only matter; others fold alike
		case 2:
			s = append([]byte(" "), s...)
		case 3:
			s = append(append([]byte(nil), s...), "\u200b\u00ad"...)
		case 4:
			s = norm.NFD.Bytes(s)
		}
		return canon.AppendString(dst, s)
	case canon.Array:
		es := d.Elems(n, nil)
		dst = append(dst, '[')
		reverse := op&2 != 0
		for i := range es {
			if i > 0 {
				dst = append(dst, ',')
			}
			if reverse {
				dst = d.AppendCanonical(dst, int(es[len(es)-1-i]))
			} else {
				dst = transform(dst, d, int(es[i]), depth+1, ops)
			}
		}
		return append(dst, ']')
	default:
		ms := d.Members(n, nil)
		if op&4 != 0 && len(ms) >= 2 {
			ms = ms[1:]
		}
		dst = append(dst, '{')
		for i, m := range ms {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = canon.AppendString(dst, d.Str(int(m)))
			dst = append(dst, ':')
			dst = transform(dst, d, int(m)+1, depth+1, ops)
		}
		return append(dst, '}')
	}
}

func FuzzSimilarTransformed(f *testing.F) {
	for _, tc := range similarCases {
		f.Add([]byte(tc.earlier), []byte{1, 2, 3, 4, 5, 6, 7})
	}
	f.Add([]byte(`{"a":[1,"x",null,{"b":"Straße","c":2}],"d":"1e3"}`), []byte{0xff, 0})
	f.Add([]byte(`{"a":"Ada\ud83d","b":{"note":null},"c":"\udc00x"}`), []byte{1, 5, 4})
	f.Add([]byte("{\"a\":\"Zo\xc3\xa9\xff\"}"), []byte{4, 1})
	f.Add([]byte(`{"d":["3 Nov 2026","11/03/2026 10:00 PM","Tue, 03 Nov 2026 10:00:00 GMT"],"e":{"at":"2026-11-03T10:00Z"}}`), []byte{1, 2, 3, 4})
	f.Fuzz(func(t *testing.T, in, ops []byte) {
		d, err := canon.Parse(in)
		if err != nil {
			return
		}
		out := transform(nil, d, 0, 0, ops)
		r := Compare(in, out)
		if !r.Similar && !r.Undecided {
			t.Fatalf("transformed input not similar:\n%s\n%s", in, out)
		}
	})
}

// fuzzDate is a date, optionally with a time and a UTC offset, as
// FuzzSimilarDates renders it.
type fuzzDate struct {
	y, m, d       int
	clock, zoned  bool
	h, mi, s, ns  int
	off           int // minutes east of UTC
	ambiguous     bool
	first, second int // the two numbers of a slash or dash date
}

// dateNotations render a date; ambiguous ones put the two numbers in
// first and second (month first or day first), noTime ones cannot carry
// a time.
var dateNotations = []struct {
	render    func(v *fuzzDate) string
	ambiguous bool
	noTime    bool
}{
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%04d-%02d-%02d", v.y, v.m, v.d) }},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%02d.%02d.%04d", v.d, v.m, v.y) }},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%d.%d.%04d", v.d, v.m, v.y) }},
	{ambiguous: true, render: func(v *fuzzDate) string { // US, month first
		v.first, v.second = v.m, v.d
		return fmt.Sprintf("%02d/%02d/%04d", v.m, v.d, v.y)
	}},
	{ambiguous: true, render: func(v *fuzzDate) string { // day first
		v.first, v.second = v.d, v.m
		return fmt.Sprintf("%02d/%02d/%04d", v.d, v.m, v.y)
	}},
	{ambiguous: true, render: func(v *fuzzDate) string {
		v.first, v.second = v.d, v.m
		return fmt.Sprintf("%02d-%02d-%04d", v.d, v.m, v.y)
	}},
	{ambiguous: true, render: func(v *fuzzDate) string {
		v.first, v.second = v.m, v.d
		return fmt.Sprintf("%d/%d/%04d", v.m, v.d, v.y)
	}},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%d %s %04d", v.d, time.Month(v.m).String()[:3], v.y) }},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%s %d, %04d", time.Month(v.m), v.d, v.y) }},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%04d/%02d/%02d", v.y, v.m, v.d) }},
	{render: func(v *fuzzDate) string {
		return fmt.Sprintf("%s, %s %d, %04d", time.Date(v.y, time.Month(v.m), v.d, 0, 0, 0, 0, time.UTC).Weekday(), time.Month(v.m), v.d, v.y)
	}},
	{render: func(v *fuzzDate) string {
		suffix := "th"
		if v.d < 11 || v.d > 13 {
			suffix = [...]string{"th", "st", "nd", "rd", "th", "th", "th", "th", "th", "th"}[v.d%10]
		}
		return fmt.Sprintf("%d%s %s %04d", v.d, suffix, time.Month(v.m), v.y)
	}},
	{render: func(v *fuzzDate) string {
		return fmt.Sprintf("%s, %02d %s %04d", time.Date(v.y, time.Month(v.m), v.d, 0, 0, 0, 0, time.UTC).Weekday().String()[:3],
			v.d, time.Month(v.m).String()[:3], v.y)
	}},
	{noTime: true, render: func(v *fuzzDate) string { return fmt.Sprintf("%s %d %04d", time.Month(v.m).String()[:3], v.d, v.y) }},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%d. %s %04d", v.d, time.Month(v.m), v.y) }},
	{render: func(v *fuzzDate) string { return fmt.Sprintf("%02d-%s-%04d", v.d, time.Month(v.m).String()[:3], v.y) }},
}

// renderDate writes v in notation n (time and zone styles from the other
// bits of n) and drops from v what the notation cannot show.
func renderDate(v *fuzzDate, n uint16) string {
	nt := dateNotations[int(n)%len(dateNotations)]
	n /= uint16(len(dateNotations))
	s := nt.render(v)
	v.ambiguous = nt.ambiguous
	if nt.noTime {
		v.clock, v.zoned = false, false
	}
	if !v.clock {
		return s
	}
	style := n % 4
	n /= 4
	if style == 3 && v.zoned {
		style = 1 // a 12-hour clock is written without a zone here
	}
	switch style {
	case 0: // ISO
		s += fmt.Sprintf("T%02d:%02d", v.h, v.mi)
	case 1:
		s += fmt.Sprintf(" %02d:%02d", v.h, v.mi)
	case 2:
		s += fmt.Sprintf(", %d:%02d", v.h, v.mi)
	case 3:
		h, ampm := v.h%12, "AM"
		if h == 0 {
			h = 12
		}
		if v.h >= 12 {
			ampm = "PM"
		}
		v.s, v.ns = 0, 0
		return s + fmt.Sprintf(" %d:%02d %s", h, v.mi, ampm)
	}
	if v.s != 0 || v.ns != 0 || n%2 == 1 {
		s += fmt.Sprintf(":%02d", v.s)
		if v.ns != 0 || n%4 == 3 {
			s += fmt.Sprintf(".%03d", v.ns/1e6)
		}
	}
	n /= 4
	if !v.zoned {
		return s
	}
	a := v.off
	sign := "+"
	if a < 0 {
		sign, a = "-", -a
	}
	switch n % 5 {
	case 0:
		if v.off == 0 {
			return s + "Z"
		}
		fallthrough
	case 1:
		return s + fmt.Sprintf("%s%02d:%02d", sign, a/60, a%60)
	case 2:
		return s + fmt.Sprintf(" %s%02d%02d", sign, a/60, a%60)
	case 3:
		if v.off == 0 {
			return s + " UTC"
		}
		return s + fmt.Sprintf(" UTC%s%02d:%02d", sign, a/60, a%60)
	default:
		return s + fmt.Sprintf(" %s%02d%02d GMT", sign, a/60, a%60)
	}
}

func (v *fuzzDate) setDay(t time.Time) {
	y, m, d := t.Date()
	v.y, v.m, v.d = y, int(m), d
}

// readings are the calendar days a rendered date can mean.
func (v *fuzzDate) readings() [][3]int {
	if !v.ambiguous {
		return [][3]int{{v.y, v.m, v.d}}
	}
	var out [][3]int
	for _, md := range [][2]int{{v.first, v.second}, {v.second, v.first}} {
		if t := time.Date(v.y, time.Month(md[0]), md[1], 0, 0, 0, 0, time.UTC); t.Day() == md[1] && int(t.Month()) == md[0] {
			out = append(out, [3]int{v.y, md[0], md[1]})
		}
	}
	return out
}

// sameDate is behaviour §4.6's rule, written with package time.
func sameDate(a, b *fuzzDate) bool {
	for _, ra := range a.readings() {
		for _, rb := range b.readings() {
			switch {
			case !a.clock || !b.clock:
				if ra == rb {
					return true
				}
			case a.zoned && b.zoned:
				ta := time.Date(ra[0], time.Month(ra[1]), ra[2], a.h, a.mi, a.s, a.ns, time.FixedZone("", a.off*60))
				tb := time.Date(rb[0], time.Month(rb[1]), rb[2], b.h, b.mi, b.s, b.ns, time.FixedZone("", b.off*60))
				if ta.Equal(tb) {
					return true
				}
			default:
				if ra == rb && a.h == b.h && a.mi == b.mi && a.s == b.s && a.ns == b.ns {
					return true
				}
			}
		}
	}
	return false
}

// fuzzClock sets v's time and zone from the bits of c.
func fuzzClock(v *fuzzDate, c uint32) {
	v.clock = c&3 != 0
	v.zoned = c&2 != 0
	v.h, v.mi = int(c>>2)%24, int(c>>7)%60
	if c&(1<<13) != 0 {
		v.mi = 0
	}
	if c&(1<<14) != 0 {
		v.s = int(c>>15) % 60
	}
	if c&(1<<21) != 0 {
		v.ns = int(c>>22) % 1000 * 1e6
	}
	v.off = (int(c>>26)%57 - 28) * 30 // −14:00 … +14:00 in half hours
}

// FuzzSimilarDates: two dates, each in a random notation with or without
// a time and zone, are similar exactly when they denote the same day (or
// the same instant, or the same wall-clock time), for either reading of an
// ambiguous slash or dash date. Different days never match.
func FuzzSimilarDates(f *testing.F) {
	f.Add(uint32(740000), int16(0), uint8(0), uint16(0), uint16(1), uint32(0), uint32(0))
	f.Add(uint32(740000), int16(1), uint8(0), uint16(3), uint16(4), uint32(0), uint32(0))
	f.Add(uint32(740003), int16(0), uint8(1), uint16(3), uint16(0), uint32(0), uint32(0))
	f.Add(uint32(740000), int16(0), uint8(2), uint16(0), uint16(17), uint32(0xdeadbeef), uint32(0x12345678))
	f.Add(uint32(740000), int16(0), uint8(3), uint16(40), uint16(90), uint32(0x80000003), uint32(0x80000001))
	f.Fuzz(func(t *testing.T, base uint32, delta int16, mode uint8, n1, n2 uint16, c1, c2 uint32) {
		lo := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
		const span = 8000 * 365
		day := lo.AddDate(0, 0, int(base%span))
		var a, b fuzzDate
		a.setDay(day)
		fuzzClock(&a, c1)
		switch mode % 4 {
		case 0: // a nearby day, maybe the same time of day
			day = day.AddDate(0, 0, int(delta%8))
			b.setDay(day)
			fuzzClock(&b, c2)
			if c2&(1<<31) != 0 {
				b.h, b.mi, b.s, b.ns = a.h, a.mi, a.s, a.ns
			}
		case 1: // month and day swapped
			b = fuzzDate{y: a.y, m: a.d, d: a.m}
			if b.m > 12 {
				b.m, b.d = a.m, a.d+int(delta%2)
			}
			fuzzClock(&b, c2)
		case 2: // the same instant in another offset
			a.clock, a.zoned = true, true
			var other fuzzDate
			fuzzClock(&other, c2)
			in := time.Date(a.y, time.Month(a.m), a.d, a.h, a.mi, a.s, a.ns, time.FixedZone("", a.off*60)).
				Add(time.Duration(delta%3) * time.Minute).In(time.FixedZone("", other.off*60))
			b = fuzzDate{clock: true, zoned: true, off: other.off, h: in.Hour(), mi: in.Minute(), s: in.Second(), ns: in.Nanosecond()}
			b.setDay(in)
		default: // any day
			day = day.AddDate(0, 0, int(delta))
			b.setDay(day)
			fuzzClock(&b, c2)
		}
		if b.y < 1000 || b.y > 9999 || b.ns%1e6 != 0 {
			return
		}
		sa, sb := renderDate(&a, n1), renderDate(&b, n2)
		ja := []byte(`{"room":"12","date":` + strconv.Quote(sa) + `}`)
		jb := []byte(`{"room":"12","date":` + strconv.Quote(sb) + `}`)
		want := sameDate(&a, &b)
		if r := Compare(ja, jb); r.Similar != want || r.Undecided {
			t.Fatalf("%q vs %q: similar %v (%+v), want %v", sa, sb, r.Similar, r, want)
		}
	})
}
