package wire

import (
	"math/big"
	"strconv"
)

// AppendNumber appends the canonical exact form of the JSON number text
// num to dst (the form package canon documents under "Numbers": the exact
// decimal value, written like ECMAScript's Number::toString but without
// rounding; never through float64). num must be a valid JSON number
// (IsNumber); the result for other input is unspecified but never panics.
func AppendNumber(dst, num []byte) []byte {
	if isPlainInt(num) {
		return append(dst, num...)
	}
	s := num
	neg := len(s) > 0 && s[0] == '-'
	if neg {
		s = s[1:]
	}
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	intPart := s[:i]
	var frac []byte
	if i < len(s) && s[i] == '.' {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		frac = s[i+1 : j]
		i = j
	}
	var expText []byte
	expNeg := false
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < len(s) && (s[i] == '+' || s[i] == '-') {
			expNeg = s[i] == '-'
			i++
		}
		expText = s[i:]
	}
	ds := digits{intPart, frac}
	total := len(intPart) + len(frac)
	a := 0 // first non-zero digit
	for a < total && ds.at(a) == '0' {
		a++
	}
	if a == total {
		return append(dst, '0')
	}
	b := total - 1 // last non-zero digit
	for ds.at(b) == '0' {
		b--
	}
	n := b - a + 1
	if neg {
		dst = append(dst, '-')
	}
	// k: position of the decimal point relative to the first digit of D.
	for len(expText) > 1 && expText[0] == '0' {
		expText = expText[1:]
	}
	adj := int64(len(intPart) - a)
	if len(expText) > 15 {
		// |exponent| >= 10^15: always the exponential form; the sum is
		// done in big arithmetic (rare, and the text is short anyway).
		e, _ := new(big.Int).SetString(string(expText), 10)
		if expNeg {
			e.Neg(e)
		}
		e.Add(e, big.NewInt(adj-1))
		dst = appendMantissa(dst, ds, a, b)
		dst = append(dst, 'e')
		return e.Append(dst, 10)
	}
	var exp int64
	for _, c := range expText {
		exp = exp*10 + int64(c-'0')
	}
	if expNeg {
		exp = -exp
	}
	k := exp + adj
	switch {
	case int64(n) <= k && k <= 21:
		dst = ds.appendRange(dst, a, b+1)
		for z := k - int64(n); z > 0; z-- {
			dst = append(dst, '0')
		}
	case 0 < k && k < int64(n):
		dst = ds.appendRange(dst, a, a+int(k))
		dst = append(dst, '.')
		dst = ds.appendRange(dst, a+int(k), b+1)
	case -6 < k && k <= 0:
		dst = append(dst, '0', '.')
		for z := -k; z > 0; z-- {
			dst = append(dst, '0')
		}
		dst = ds.appendRange(dst, a, b+1)
	default:
		dst = appendMantissa(dst, ds, a, b)
		dst = append(dst, 'e')
		dst = strconv.AppendInt(dst, k-1, 10)
	}
	return dst
}

// NumberProblem says why a text is not a JSON number; the scanners word it
// for their own errors.
type NumberProblem uint8

// What ScanNumber finds wrong.
const (
	NumberOK         NumberProblem = iota
	NumberNoDigits                 // no integer digits (or "-" alone)
	NumberNoFraction               // no digit after '.'
	NumberNoExponent               // no digit in the exponent
)

// ScanNumber is the one JSON number lexer: it reads the number starting at
// d[i] (a '-' or a digit) and returns the offset after it, or what is wrong
// (the offset is then meaningless).
func ScanNumber(d []byte, i int) (int, NumberProblem) {
	if d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case i < len(d) && d[i] >= '1' && d[i] <= '9':
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	default:
		return i, NumberNoDigits
	}
	if i < len(d) && d[i] == '.' {
		i++
		if i >= len(d) || !isDigit(d[i]) {
			return i, NumberNoFraction
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if i >= len(d) || !isDigit(d[i]) {
			return i, NumberNoExponent
		}
		for i < len(d) && isDigit(d[i]) {
			i++
		}
	}
	return i, NumberOK
}

// IsNumber reports whether s is exactly one JSON number (no whitespace).
func IsNumber(s []byte) bool {
	if len(s) == 0 {
		return false
	}
	j, p := ScanNumber(s, 0)
	return p == NumberOK && j == len(s)
}

// appendMantissa writes d[.ddd] for the digits a..b.
func appendMantissa(dst []byte, ds digits, a, b int) []byte {
	dst = append(dst, ds.at(a))
	if b > a {
		dst = append(dst, '.')
		dst = ds.appendRange(dst, a+1, b+1)
	}
	return dst
}

// digits is the concatenation of the integer and fraction digits of a
// number, without copying.
type digits struct{ i, f []byte }

func (d digits) at(k int) byte {
	if k < len(d.i) {
		return d.i[k]
	}
	return d.f[k-len(d.i)]
}

func (d digits) appendRange(dst []byte, from, to int) []byte {
	if from < len(d.i) {
		e := min(to, len(d.i))
		dst = append(dst, d.i[from:e]...)
		from = e
	}
	if from < to {
		dst = append(dst, d.f[from-len(d.i):to-len(d.i)]...)
	}
	return dst
}

// isPlainInt reports whether num is already canonical: an integer of at
// most 21 digits (no fraction or exponent), not -0.
func isPlainInt(num []byte) bool {
	d := num
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
		if len(d) == 1 && d[0] == '0' {
			return false
		}
	}
	if len(d) == 0 || len(d) > 21 || (d[0] == '0' && len(d) > 1) {
		return false
	}
	for _, c := range d {
		if !isDigit(c) {
			return false
		}
	}
	return true
}
