package neardup

import (
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/cuonztech/agent-harness/internal/canon"
)

// dateCases are pairs of date strings (behaviour §4.6, SPEC §17.8); each
// is compared inside an object with another, equal member.
var dateCases = []struct {
	name           string
	earlier, later string
	want           bool
}{
	// the same day in the notations of SPEC §17.8
	{"iso-vs-dots", "2026-11-03", "03.11.2026", true},
	{"iso-vs-dots-unpadded", "2026-11-03", "3.11.2026", true},
	{"iso-vs-us-slashes", "2026-11-03", "11/03/2026", true},
	{"iso-vs-european-slashes", "2026-11-03", "03/11/2026", true},
	{"iso-vs-day-month-name", "2026-11-03", "3 Nov 2026", true},
	{"iso-vs-month-name-day", "2026-11-03", "November 3, 2026", true},
	{"dots-vs-month-name", "03.11.2026", "November 3, 2026", true},
	{"us-vs-european-slashes-same-day", "11/03/2026", "03/11/2026", true},
	{"us-slashes-unambiguous", "12/31/2026", "2026-12-31", true},
	{"european-slashes-unambiguous", "31/12/2026", "2026-12-31", true},
	{"year-first-slashes", "2026/11/03", "2026-11-03", true},
	{"year-first-dots", "2026.11.03", "2026-11-03", true},
	{"dashes-year-last", "03-11-2026", "2026-11-03", true},
	{"month-name-dashes", "03-Nov-2026", "2026-11-03", true},
	{"full-month-name-day-first", "3 November 2026", "2026-11-03", true},
	{"german-day-dot-month-name", "3. November 2026", "2026-11-03", true},
	{"abbreviation-with-dot", "Nov. 3, 2026", "2026-11-03", true},
	{"sept", "Sept 3, 2026", "2026-09-03", true},
	{"ordinal-month-first", "November 3rd, 2026", "2026-11-03", true},
	{"ordinal-day-first", "3rd November 2026", "2026-11-03", true},
	{"month-first-no-comma", "Nov 3 2026", "2026-11-03", true},
	{"month-first-no-comma-two-digit-day", "Nov 13 2026", "2026-11-13", true},
	{"weekday", "Tuesday, November 3, 2026", "2026-11-03", true},
	{"weekday-abbreviated", "Tue, 03 Nov 2026", "2026-11-03", true},
	{"upper-case", "3 NOV 2026", "2026-11-03", true},
	{"fullwidth-digits", "２０２６-１１-０３", "03.11.2026", true},
	{"leap-day", "29.02.2028", "2028-02-29", true},

	// date-times: the same instant in any zone; local times by the wall clock
	{"datetime-z-vs-offset-same-instant", "2026-11-03T10:00:00Z", "2026-11-03T11:00:00+01:00", true},
	{"datetime-offset-across-midnight", "2026-11-03T23:30:00-01:00", "2026-11-04T00:30:00Z", true},
	{"datetime-basic-offset", "2026-11-03T10:00:00+0100", "2026-11-03T09:00:00Z", true},
	{"datetime-utc-name", "03.11.2026 09:00 UTC", "2026-11-03T10:00+01:00", true},
	{"datetime-gmt-offset", "Tue, 03 Nov 2026 10:00:00 GMT", "2026-11-03T10:00:00.000Z", true},
	{"datetime-go-string", "2026-11-03 10:00:00 +0000 UTC", "2026-11-03T10:00:00Z", true},
	{"datetime-fraction-zero", "2026-11-03T10:00:00.000Z", "2026-11-03T10:00Z", true},
	{"datetime-pm", "November 3, 2026 3:00 PM", "2026-11-03T15:00", true},
	{"datetime-12am", "11/03/2026 12:30 am", "2026-11-03T00:30", true},
	{"datetime-local-vs-local", "03.11.2026 10:00", "2026-11-03T10:00:00", true},
	{"datetime-local-vs-zoned-same-wall-clock", "2026-11-03T10:00", "2026-11-03T10:00:00+01:00", true},
	{"datetime-month-first-comma", "Nov 3, 2026 10:00", "2026-11-03T10:00", true},
	{"datetime-slashes-ambiguous", "03/11/2026 10:00", "2026-03-11T10:00", true},

	// a date-time and a bare date: the same day as written
	{"datetime-vs-date-same-day", "2026-11-03T15:00:00+01:00", "03.11.2026", true},
	{"midnight-vs-date", "2026-11-03T00:00:00Z", "2026-11-03", true},
	{"local-datetime-vs-date", "2026-11-03 18:45", "November 3, 2026", true},

	// different days never match
	{"not/next-day", "2026-11-03", "2026-11-04", false},
	{"not/next-day-other-notation", "2026-11-03", "04.11.2026", false},
	{"31.12-vs-12/31", "31.12.2026", "12/31/2026", true},
	{"not/31.12-vs-12/31-other-year", "31.12.2026", "12/31/2025", false},
	{"not/dots-are-day-first", "11.03.2026", "2026-11-03", false},
	{"not/slashes-neither-reading", "11/04/2026", "2026-11-03", false},
	{"not/other-year", "3 Nov 2026", "3 Nov 2027", false},
	{"not/other-month", "November 3, 2026", "October 3, 2026", false},
	{"not/datetime-vs-other-day", "2026-11-04T00:30:00+01:00", "2026-11-03", false},
	{"not/datetime-same-instant-written-other-day", "2026-11-02T23:30:00-01:00", "2026-11-03", false},
	{"not/same-day-other-instant", "2026-11-03T10:00:00Z", "2026-11-03T10:00:00+01:00", false},
	{"not/same-day-other-time", "2026-11-03T10:00", "2026-11-03T11:00", false},
	{"not/local-vs-zoned-other-wall-clock", "2026-11-03T10:00", "2026-11-03T09:00:00Z", false},
	{"not/fraction-differs", "2026-11-03T10:00:00.001Z", "2026-11-03T10:00:00Z", false},
	{"not/am-vs-pm", "November 3, 2026 3:00 AM", "2026-11-03T15:00", false},

	// not dates: compared as text
	{"not/invalid-day", "31.11.2026", "2026-12-01", false},
	{"not/not-a-leap-year", "29.02.2026", "2026-03-01", false},
	{"not/two-digit-year", "03.11.26", "2026-11-03", false},
	{"not/eight-digits", "20261103", "2026-11-03", false},
	{"not/iso-unpadded", "2026-11-3", "2026-11-03", false},
	{"not/month-first-no-comma-with-time", "Nov 3 2026 10:00", "2026-11-03T10:00", false},
	{"not/hour-24", "2026-11-03T24:00", "2026-11-04", false},
	{"not/13pm", "2026-11-03 13:00 pm", "2026-11-03", false},
	{"not/named-zone", "2026-11-03 10:00 CET", "2026-11-03", false},
	{"not/text-around", "on 2026-11-03", "2026-11-03", false},
	{"not/german-month-name", "3. Dezember 2026", "2026-12-03", false},
}

func TestSimilarDates(t *testing.T) {
	for _, tc := range dateCases {
		t.Run(tc.name, func(t *testing.T) {
			a := []byte(`{"room":"12","date":` + strconv.Quote(tc.earlier) + `}`)
			b := []byte(`{"room":"12","date":` + strconv.Quote(tc.later) + `}`)
			for _, p := range [][2][]byte{{a, b}, {b, a}} {
				r := Compare(p[0], p[1])
				if r.Similar != tc.want || r.Undecided {
					t.Errorf("Compare(%s, %s) = %+v, want similar %v", p[0], p[1], r, tc.want)
				}
				if tc.want && r.Kinds() != "date notation" && tc.earlier != tc.later {
					t.Errorf("Compare(%s, %s) kinds %q, want date notation", p[0], p[1], r.Kinds())
				}
			}
		})
	}
}

// TestSimilarDatesAmbiguousNotTransitive: 03/11/2026 matches both
// 2026-03-11 and 2026-11-03 (either reading), which do not match each
// other; in an array each needs its own partner.
func TestSimilarDatesAmbiguousNotTransitive(t *testing.T) {
	tests := []struct {
		name, a, b string
		want       bool
	}{
		{"one-reading-each", `["03/11/2026","04/11/2026"]`, `["2026-03-11","2026-11-04"]`, true},
		{"both-readings-of-one", `["03/11/2026"]`, `["2026-03-11"]`, true},
		{"readings-do-not-chain", `["2026-03-11"]`, `["2026-11-03"]`, false},
		{"array-order-and-notation", `["2026-11-03","2026-11-04"]`, `["4 Nov 2026","3 Nov 2026"]`, true},
		{"array-one-day-changed", `["2026-11-03","2026-11-04"]`, `["4 Nov 2026","5 Nov 2026"]`, false},
		{"not-a-number", `{"n":"2026-11-03"}`, `{"n":20261103}`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Similar([]byte(tc.a), []byte(tc.b)); got != tc.want {
				t.Errorf("Similar(%s, %s) = %v, want %v", tc.a, tc.b, got, tc.want)
			}
		})
	}
}

func TestCompareArgsDateReason(t *testing.T) {
	r := CompareArgs([]byte(`{"idempotency_key":"k1","room":"12","date":"2026-11-03"}`),
		[]byte(`{"idempotency_key":"k2","room":"12","date":"03.11.2026"}`), canon.KeyFields{})
	want := "the arguments of create_booking differ only by date notation (docs/behaviour.md §4.6)"
	if !r.Similar || r.Reason("create_booking") != want {
		t.Errorf("CompareArgs = %+v, %q; want %q", r, r.Reason("create_booking"), want)
	}
}

// TestSimilarDatesFarApart: instants are compared in whole seconds plus
// nanoseconds; in int64 nanoseconds, two instants 2^64 ns (about 584
// years) apart would wrap to the same number and match.
func TestSimilarDatesFarApart(t *testing.T) {
	t1 := time.Date(1000, 1, 1, 0, 0, 0, 0, time.UTC)
	t2 := t1.Add(math.MaxInt64).Add(math.MaxInt64).Add(2)
	a := []byte(`{"at":"` + t1.Format(time.RFC3339Nano) + `"}`)
	b := []byte(`{"at":"` + t2.Format(time.RFC3339Nano) + `"}`)
	if Similar(a, b) {
		t.Errorf("Similar(%s, %s) = true, want false", a, b)
	}
	c := []byte(`{"at":"` + t2.In(time.FixedZone("", -5*3600)).Format(time.RFC3339Nano) + `"}`)
	if !Similar(b, c) {
		t.Errorf("Similar(%s, %s) = false, want true", b, c)
	}
}
