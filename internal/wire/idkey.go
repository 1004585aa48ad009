package wire

import (
	"math/big"
	"strconv"
)

// maxPlainDigits is the longest integer IDKey writes out in full; a longer
// (or non-integer) value is keyed as mantissa and exponent.
const maxPlainDigits = 40

// IDKey returns a comparable key for a raw JSON-RPC id, so that an id echoed
// in another spelling maps to the same key: strings by their unescaped
// value ("a" and "\u0061"), numbers by their exact decimal value (2, 2.0,
// 2e0, 20e-1 and 0.2e1 are one key; -0 and 0 are one key; 2 and 2.5, and
// 2^53 and 2^53+1, are not). Numbers never go through float64, and a huge
// exponent costs no more memory than its own digits. Other values are keyed
// by their raw text.
func IDKey(raw []byte) string {
	if len(raw) == 0 {
		return ""
	}
	switch c := raw[0]; {
	case c == '"':
		if s, ok := Unquote(raw); ok {
			return "s" + s
		}
	case c == '-' || (c >= '0' && c <= '9'):
		if k, ok := numberKey(raw); ok {
			return k
		}
	}
	return "x" + string(raw)
}

// numberKey keys a JSON number by its exact value: "n" + the integer when
// it is one of at most maxPlainDigits digits, else "n" + sign + the
// significant digits (no leading or trailing zeros) + "e" + the exponent of
// their last digit. Each value has exactly one key. ok is false for text
// that is not a JSON number.
func numberKey(raw []byte) (string, bool) {
	i := 0
	neg := raw[0] == '-'
	if neg {
		i++
	}
	intStart := i
	for i < len(raw) && isDigit(raw[i]) {
		i++
	}
	intEnd := i
	if intEnd == intStart || (raw[intStart] == '0' && intEnd-intStart > 1) {
		return "", false
	}
	if i == len(raw) && intEnd-intStart <= maxPlainDigits {
		// The common case: a plain integer, already in its only spelling.
		if raw[intStart] == '0' {
			return "n0", true
		}
		return "n" + string(raw), true
	}
	fracStart, fracEnd := i, i
	if i < len(raw) && raw[i] == '.' {
		i++
		fracStart = i
		for i < len(raw) && isDigit(raw[i]) {
			i++
		}
		fracEnd = i
		if fracEnd == fracStart {
			return "", false
		}
	}
	var expText []byte
	if i < len(raw) && (raw[i] == 'e' || raw[i] == 'E') {
		i++
		es := i
		if i < len(raw) && (raw[i] == '+' || raw[i] == '-') {
			i++
		}
		ds := i
		for i < len(raw) && isDigit(raw[i]) {
			i++
		}
		if i == ds {
			return "", false
		}
		expText = raw[es:i]
	}
	if i != len(raw) {
		return "", false
	}
	// The significant digits are int digits then fraction digits; the value
	// is digits × 10^(exp − len(fraction)).
	digits := make([]byte, 0, (intEnd-intStart)+(fracEnd-fracStart))
	digits = append(digits, raw[intStart:intEnd]...)
	digits = append(digits, raw[fracStart:fracEnd]...)
	lead := 0
	for lead < len(digits) && digits[lead] == '0' {
		lead++
	}
	digits = digits[lead:]
	if len(digits) == 0 {
		return "n0", true
	}
	trail := 0
	for trail < len(digits) && digits[len(digits)-1-trail] == '0' {
		trail++
	}
	digits = digits[:len(digits)-trail]
	// shift = trailing zeros removed − fraction digits; bounded by the
	// message's length, so it fits an int64.
	shift := int64(trail) - int64(fracEnd-fracStart)
	var exp int64
	var bigExp *big.Int
	if len(expText) > 0 {
		e, err := strconv.ParseInt(string(expText), 10, 64)
		if err == nil && e < 1<<61 && e > -(1<<61) {
			exp = e + shift
		} else {
			bigExp, _ = new(big.Int).SetString(string(expText), 10)
			if bigExp == nil {
				return "", false
			}
			bigExp.Add(bigExp, big.NewInt(shift))
		}
	} else {
		exp = shift
	}
	b := make([]byte, 0, len(digits)+24)
	b = append(b, 'n')
	if neg {
		b = append(b, '-')
	}
	if bigExp == nil && exp >= 0 && int64(len(digits))+exp <= maxPlainDigits {
		b = append(b, digits...)
		for range exp {
			b = append(b, '0')
		}
		return string(b), true
	}
	b = append(b, digits...)
	b = append(b, 'e')
	if bigExp != nil {
		b = bigExp.Append(b, 10)
	} else {
		b = strconv.AppendInt(b, exp, 10)
	}
	return string(b), true
}
