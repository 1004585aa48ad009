package neardup

import "encoding/binary"

// Dates and date-times written in another notation (behaviour §4.6, SPEC
// §17.8). A string is read as a date from its normalised text (invisible
// characters removed, NFKC, case folded, white space removed), so two
// strings that normalise alike are always read alike and the invariant
// hash stays a function of the normalised text.

// momentKind says how much of a point in time a string gives.
type momentKind uint8

const (
	momentDay   momentKind = iota + 1 // a calendar day
	momentLocal                       // a day and a wall-clock time, no zone
	momentZoned                       // a day, a time and a UTC offset: an instant
)

// moment is one reading of a date string. day and nanos are the date and
// time of day as written (in the string's own offset).
type moment struct {
	kind  momentKind
	off   int16 // UTC offset in minutes (momentZoned)
	day   int32 // days since 1970-01-01 (years 1–9999 fit)
	nanos int64 // time of day in nanoseconds (0 for momentDay)
}

// dateReadings are the readings of a string: none (not a date), one, or
// two for a slash or dash date whose day and month can be swapped
// (11/03/2026 is 3 November in the US and 11 March in most of Europe).
type dateReadings struct {
	n uint8
	r [2]moment
}

// sameMoment is the date rule of behaviour §4.6: a bare day matches any
// reading on the same day as written; two instants match when they are
// equal; otherwise (two local times, or a local time and an instant) the
// date and wall-clock time as written must be equal.
func sameMoment(a, b moment) bool {
	switch {
	case a.kind == momentDay || b.kind == momentDay:
		return a.day == b.day
	case a.kind == momentZoned && b.kind == momentZoned:
		return a.instant() == b.instant() && a.nanos%1e9 == b.nanos%1e9
	}
	return a.day == b.day && a.nanos == b.nanos
}

// appendKey appends bytes that identify m's kind and value: equal for
// equal days, equal wall-clock times, equal instants.
func (m moment) appendKey(b []byte) []byte {
	v := int64(m.day)
	switch m.kind {
	case momentLocal:
		b = binary.LittleEndian.AppendUint64(b, uint64(v))
		v = m.nanos
	case momentZoned:
		b = binary.LittleEndian.AppendUint64(b, uint64(m.nanos%1e9))
		v = m.instant()
	}
	return binary.LittleEndian.AppendUint64(append(b, byte(m.kind)), uint64(v))
}

// instant is a zoned moment's whole seconds since 1970-01-01T00:00:00Z (in
// seconds, not nanoseconds: year 9999 does not fit int64 nanoseconds).
func (m moment) instant() int64 {
	return int64(m.day)*86400 + m.nanos/1e9 - int64(m.off)*60
}

// match reports whether some reading of x is the same moment as some
// reading of y.
func (x *dateReadings) match(y *dateReadings) bool {
	for _, a := range x.r[:x.n] {
		for _, b := range y.r[:y.n] {
			if sameMoment(a, b) {
				return true
			}
		}
	}
	return false
}

// parseDate reads s, a normalised string (lower case, no white space), as
// one of the notations of behaviour §4.6:
//
//   - year first: 2026-11-03, 2026/11/03, 2026.11.03 (two-digit month and day);
//   - day first with dots: 03.11.2026, 3.11.2026;
//   - slashes or dashes with the year last: 11/03/2026, 3-11-2026 — read
//     both ways (month first and day first) when both are dates;
//   - month names (English, full or three letters, "sept"): 3 nov 2026,
//     3. november 2026, 03-nov-2026, 3rd nov 2026, november 3, 2026,
//     nov 3rd 2026, nov 3 2026 (the last without a time only);
//   - an optional weekday in front: tue, 3 nov 2026; tuesday, november 3, 2026;
//   - an optional time after the date (after "t", a comma or nothing):
//     h:mm, hh:mm:ss, a fraction of up to 9 digits, am/pm, and a zone:
//     z, utc, gmt, ±hh, ±hhmm, ±hh:mm, utc±hh:mm.
//
// The year has four digits; the date must exist.
func parseDate(s []byte) dateReadings {
	var out dateReadings
	if len(s) < 8 || len(s) > 64 || !mayBeDate(s) {
		return out
	}
	p := dateParser{s: s}
	p.weekday()
	var ymd [2][3]int
	n := p.date(&ymd)
	if n == 0 {
		return out
	}
	m, ok := p.clock()
	if !ok || p.i != len(p.s) {
		return out
	}
	for _, d := range ymd[:n] {
		if !validDate(d[0], d[1], d[2]) {
			continue
		}
		r := m
		r.day = int32(daysFromCivil(d[0], d[1], d[2]))
		if out.n == 1 && out.r[0].day == r.day {
			continue
		}
		out.r[out.n] = r
		out.n++
	}
	return out
}

// mayBeDate is a quick filter: a date starts with a digit or with the
// first letter of a weekday or month name, and has at least five digits
// (a four-digit year and a day).
func mayBeDate(s []byte) bool {
	switch c := s[0]; {
	case isDigit(c):
	case c == 'a' || c == 'd' || c == 'f' || c == 'j' || c == 'm' || c == 'n' || c == 'o' || c == 's' || c == 't' || c == 'w':
	default:
		return false
	}
	digits := 0
	for _, c := range s {
		if isDigit(c) {
			digits++
		}
	}
	return digits >= 5
}

type dateParser struct {
	s []byte
	i int
}

func (p *dateParser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// accept consumes c when it is next.
func (p *dateParser) accept(c byte) bool {
	if p.peek() == c {
		p.i++
		return true
	}
	return false
}

// word consumes w when it is next.
func (p *dateParser) word(w string) bool {
	if len(p.s)-p.i >= len(w) && p.s[p.i] == w[0] && string(p.s[p.i:p.i+len(w)]) == w {
		p.i += len(w)
		return true
	}
	return false
}

// digits consumes 1 to max digits and returns their value and count.
func (p *dateParser) digits(max int) (v, n int) {
	for n < max && p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
		v = v*10 + int(p.s[p.i]-'0')
		p.i++
		n++
	}
	return v, n
}

// exactly consumes exactly n digits (and no more follow).
func (p *dateParser) exactly(n int) (int, bool) {
	v, got := p.digits(n)
	return v, got == n && !isDigit(p.peek())
}

// fixed consumes n digits; more may follow. The last field of a date is
// read so, because without white space a time runs into it
// (2026-11-03 10:00 is 2026-11-0310:00).
func (p *dateParser) fixed(n int) (int, bool) {
	v, got := p.digits(n)
	return v, got == n
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

var weekdays = [...]string{"monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
	"tues", "thurs", "thur", "mon", "tue", "wed", "thu", "fri", "sat", "sun"}

// weekday skips a leading weekday name and a comma or dot after it. The
// weekday is not checked against the date: the date decides.
func (p *dateParser) weekday() {
	if isDigit(p.peek()) {
		return
	}
	for _, w := range weekdays {
		if p.word(w) {
			if !p.accept(',') {
				p.accept('.')
			}
			return
		}
	}
}

var months = [...]struct {
	name string
	n    int
}{
	{"january", 1}, {"february", 2}, {"march", 3}, {"april", 4}, {"may", 5}, {"june", 6},
	{"july", 7}, {"august", 8}, {"september", 9}, {"october", 10}, {"november", 11}, {"december", 12},
	{"sept", 9},
	{"jan", 1}, {"feb", 2}, {"mar", 3}, {"apr", 4}, {"jun", 6}, {"jul", 7}, {"aug", 8},
	{"sep", 9}, {"oct", 10}, {"nov", 11}, {"dec", 12},
}

// month consumes a month name (and a dot after an abbreviation).
func (p *dateParser) month() int {
	if c := p.peek(); c < 'a' || c > 'z' {
		return 0
	}
	for _, m := range months {
		if p.word(m.name) {
			p.accept('.')
			return m.n
		}
	}
	return 0
}

// ordinal skips an English ordinal suffix (3rd, 1st).
func (p *dateParser) ordinal() {
	for _, w := range [...]string{"st", "nd", "rd", "th"} {
		if p.word(w) {
			return
		}
	}
}

// date reads the date part into ymd (year, month, day per reading) and
// returns the number of readings, 0 when it is not a date.
func (p *dateParser) date(ymd *[2][3]int) int {
	if m := p.month(); m != 0 {
		return p.monthFirst(m, ymd)
	}
	v, n := p.digits(4)
	switch {
	case n == 4:
		// Year first: two-digit month and day, one separator.
		sep := p.peek()
		if sep != '-' && sep != '/' && sep != '.' {
			return 0
		}
		p.i++
		mo, ok := p.exactly(2)
		if !ok || !p.accept(sep) {
			return 0
		}
		d, ok := p.fixed(2)
		if !ok {
			return 0
		}
		ymd[0] = [3]int{v, mo, d}
		return 1
	case n == 0 || n > 2:
		return 0
	}
	a := v
	sep := p.peek()
	switch sep {
	case '.', '/', '-':
		p.i++
		if m := p.month(); m != 0 {
			// 3.nov.2026, 03-nov-2026
			if !p.accept(sep) && sep == '-' {
				return 0
			}
			return p.year(a, m, ymd)
		}
		b, nb := p.digits(2)
		if nb == 0 || isDigit(p.peek()) || !p.accept(sep) {
			return 0
		}
		y, ok := p.fixed(4)
		if !ok {
			return 0
		}
		if sep == '.' {
			ymd[0] = [3]int{y, b, a} // day first
			return 1
		}
		ymd[0] = [3]int{y, a, b} // month first (US)
		ymd[1] = [3]int{y, b, a} // day first
		return 2
	}
	// 3 nov 2026, 3rd nov 2026
	p.ordinal()
	m := p.month()
	if m == 0 {
		return 0
	}
	return p.year(a, m, ymd)
}

// year reads an optional comma and the four-digit year after a day and a
// month name.
func (p *dateParser) year(d, m int, ymd *[2][3]int) int {
	p.accept(',')
	y, ok := p.fixed(4)
	if !ok {
		return 0
	}
	ymd[0] = [3]int{y, m, d}
	return 1
}

// monthFirst reads the day and year after a month name: "3, 2026",
// "3rd 2026", or "32026" (day and year run together when the white space
// is removed; then nothing may follow, since a time would run into it).
func (p *dateParser) monthFirst(m int, ymd *[2][3]int) int {
	start := p.i
	v, n := p.digits(6)
	switch {
	case n == 0:
		return 0
	case n <= 2:
		p.ordinal()
		return p.year(v, m, ymd)
	case (n == 5 || n == 6) && p.i == len(p.s):
		p.i = start
		d, _ := p.digits(n - 4)
		y, _ := p.digits(4)
		ymd[0] = [3]int{y, m, d}
		return 1
	}
	return 0
}

// clock reads the optional time and zone after the date.
func (p *dateParser) clock() (moment, bool) {
	if p.i == len(p.s) {
		return moment{kind: momentDay}, true
	}
	if !p.accept('t') {
		p.accept(',')
	}
	h, nh := p.digits(2)
	if nh == 0 || isDigit(p.peek()) || !p.accept(':') {
		return moment{}, false
	}
	mi, ok := p.exactly(2)
	if !ok {
		return moment{}, false
	}
	sec, frac := 0, int64(0)
	if p.accept(':') {
		if sec, ok = p.exactly(2); !ok {
			return moment{}, false
		}
		if p.accept('.') || p.accept(',') {
			f, nf := p.digits(9)
			if nf == 0 || isDigit(p.peek()) {
				return moment{}, false
			}
			frac = int64(f)
			for range 9 - nf {
				frac *= 10
			}
		}
	}
	switch {
	case p.word("am") || p.word("a.m."):
		if h < 1 || h > 12 {
			return moment{}, false
		}
		h %= 12
	case p.word("pm") || p.word("p.m."):
		if h < 1 || h > 12 {
			return moment{}, false
		}
		h = h%12 + 12
	}
	if h > 23 || mi > 59 || sec > 59 {
		return moment{}, false
	}
	m := moment{kind: momentLocal, nanos: ((int64(h)*60+int64(mi))*60+int64(sec))*1e9 + frac}
	off, zoned, ok := p.zone()
	if !ok {
		return moment{}, false
	}
	if zoned {
		m.kind, m.off = momentZoned, off
	}
	return m, true
}

// zone reads an optional zone: z, utc, gmt, an offset (±h, ±hh, ±hhmm,
// ±hh:mm), or utc/gmt with an offset. A zone name after an offset
// (+0000 utc, as Go's time.Time.String writes) is skipped: the offset
// decides.
func (p *dateParser) zone() (off int16, zoned, ok bool) {
	if p.i == len(p.s) {
		return 0, false, true
	}
	if p.accept('z') {
		return 0, true, true
	}
	named := p.word("utc") || p.word("gmt")
	sign := p.peek()
	if sign != '+' && sign != '-' {
		return 0, named, named
	}
	p.i++
	v, n := p.digits(4)
	h, mi := v, 0
	switch n {
	case 1, 2:
		if p.accept(':') {
			if mi, ok = p.exactly(2); !ok {
				return 0, false, false
			}
		}
	case 4:
		h, mi = v/100, v%100
	default:
		return 0, false, false
	}
	if isDigit(p.peek()) || h > 23 || mi > 59 {
		return 0, false, false
	}
	if !named {
		for k := 0; k < 5 && p.i < len(p.s) && p.s[p.i] >= 'a' && p.s[p.i] <= 'z'; k++ {
			p.i++
		}
	}
	o := int16(h*60 + mi)
	if sign == '-' {
		o = -o
	}
	return o, true, true
}

func validDate(y, m, d int) bool {
	return y >= 1 && m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m)
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to the proleptic
// Gregorian date y-m-d (H. Hinnant's algorithm).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y >= 0 here
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}
