package main

import "strings"

// NormalizeDate reports whether s is a calendar date in one of the
// recognised notations and returns it as YYYY-MM-DD:
//
//   - 2026-11-03 (ISO 8601)
//   - 2026/11/03
//   - 03.11.2026 and 3.11.2026 (day first, as in German and many other
//     European locales)
//   - 20261103, only for years 1900–2199 (eight digits that are a valid
//     date in that range; elsewhere they are more likely a number-like ID)
//   - 2026-11-03T00:00:00 at midnight, optionally with a fraction of zeros
//     (.000) and Z, +00:00 or -00:00
//
// The date must exist (no 2026-02-30). Slash dates with the year last
// (11/03/2026) are ambiguous between month-first and day-first and are
// not recognised; neither are times other than midnight UTC.
func NormalizeDate(s string) (string, bool) {
	switch {
	case len(s) == 10 && (s[4] == '-' || s[4] == '/') && s[7] == s[4]:
		return ymd(s[0:4], s[5:7], s[8:10])
	case len(s) == 8 && allDigits(s):
		if y := s[0:4]; y < "1900" || y > "2199" {
			return "", false
		}
		return ymd(s[0:4], s[4:6], s[6:8])
	case len(s) > 10 && (s[10] == 'T' || s[10] == 't') && s[4] == '-' && s[7] == '-':
		if !midnight(s[11:]) {
			return "", false
		}
		return ymd(s[0:4], s[5:7], s[8:10])
	case strings.Count(s, ".") == 2 && len(s) >= 8 && len(s) <= 10:
		d, rest, _ := strings.Cut(s, ".")
		m, y, _ := strings.Cut(rest, ".")
		if len(d) < 1 || len(d) > 2 || len(m) < 1 || len(m) > 2 || len(y) != 4 {
			return "", false
		}
		return ymd(y, pad2(m), pad2(d))
	}
	return "", false
}

// midnight accepts "00:00:00", an all-zero fraction, and an optional UTC
// designator.
func midnight(t string) bool {
	if !strings.HasPrefix(t, "00:00:00") {
		return false
	}
	t = t[len("00:00:00"):]
	if strings.HasPrefix(t, ".") {
		i := 1
		for i < len(t) && t[i] == '0' {
			i++
		}
		if i == 1 {
			return false
		}
		t = t[i:]
	}
	switch t {
	case "", "Z", "z", "+00:00", "-00:00":
		return true
	}
	return false
}

// ymd validates a date given as digit strings and formats it.
func ymd(y, m, d string) (string, bool) {
	if len(y) != 4 || len(m) != 2 || len(d) != 2 || !allDigits(y+m+d) {
		return "", false
	}
	year, month, day := atoi(y), atoi(m), atoi(d)
	if year == 0 || month < 1 || month > 12 || day < 1 || day > daysIn(year, month) {
		return "", false
	}
	return y + "-" + m + "-" + d, true
}

func daysIn(year, month int) int {
	switch month {
	case 2:
		if year%4 == 0 && (year%100 != 0 || year%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func pad2(s string) string {
	if len(s) == 1 {
		return "0" + s
	}
	return s
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

func atoi(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		n = n*10 + int(s[i]-'0')
	}
	return n
}
