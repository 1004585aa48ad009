package sdk

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strconv"
	"strings"
)

// Canonical encodes a decoded JSON value (from DecodeJSON: nil, bool,
// json.Number, string, []any, map[string]any) deterministically: object
// members sorted by name bytes, no whitespace, numbers in an exact
// canonical form (CanonicalNumber). Two values get the same encoding
// exactly when the host's canonical form (internal/canon) makes them equal,
// so a key built from it never separates calls the built-in key joins, nor
// joins calls it separates; the text itself differs (12e2 for 1200, \u000a
// for a newline). The host's FuzzSDKCanonical proves it.
func Canonical(v any) ([]byte, error) {
	var b bytes.Buffer
	if err := appendCanonical(&b, v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func appendCanonical(b *bytes.Buffer, v any) error {
	switch v := v.(type) {
	case nil:
		b.WriteString("null")
	case bool:
		b.WriteString(strconv.FormatBool(v))
	case json.Number:
		n, err := CanonicalNumber(string(v))
		if err != nil {
			return err
		}
		b.WriteString(n)
	case string:
		writeString(b, v)
	case []any:
		b.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := appendCanonical(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case map[string]any:
		names := make([]string, 0, len(v))
		for k := range v {
			names = append(names, k)
		}
		slices.Sort(names)
		b.WriteByte('{')
		for i, k := range names {
			if i > 0 {
				b.WriteByte(',')
			}
			writeString(b, k)
			b.WriteByte(':')
			if err := appendCanonical(b, v[k]); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	default:
		return fmt.Errorf("sdk: canonical: unsupported type %T", v)
	}
	return nil
}

// writeString writes s as a JSON string, escaping only '"', '\' and
// control characters.
func writeString(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20:
			b.WriteString(`\u00`)
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&0xf])
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
}

// CanonicalNumber returns one text per exact decimal value of a JSON
// number: sign, the significant digits without leading or trailing zeros,
// and a decimal exponent ("12", "15e-1", "12e2", "0"). 12, 12.0, 1.2e1 and
// 120e-1 give "12"; -0 gives "0". It never goes through float64.
func CanonicalNumber(s string) (string, error) {
	orig := s
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	mant, exp, hasExp := strings.Cut(strings.ToLower(s), "e")
	intPart, frac, hasFrac := strings.Cut(mant, ".")
	if intPart == "" || !digits(intPart) || !digits(frac) || hasFrac && frac == "" || hasExp && exp == "" {
		return "", fmt.Errorf("sdk: %q is not a JSON number", orig)
	}
	digs := strings.TrimLeft(intPart+frac, "0")
	trimmed := strings.TrimRight(digs, "0")
	if trimmed == "" {
		return "0", nil
	}
	// value = digs × 10^(exp − len(frac)); trimming t trailing zeros adds t.
	shift := int64(len(digs)-len(trimmed)) - int64(len(frac))
	e, err := exponent(exp, shift)
	if err != nil {
		return "", fmt.Errorf("sdk: %q: %w", orig, err)
	}
	out := trimmed
	if neg {
		out = "-" + out
	}
	if e != "0" {
		out += "e" + e
	}
	return out, nil
}

// exponent returns exp + shift as decimal text, exactly.
func exponent(exp string, shift int64) (string, error) {
	if exp == "" {
		return strconv.FormatInt(shift, 10), nil
	}
	sign := ""
	switch exp[0] {
	case '+':
		exp = exp[1:]
	case '-':
		sign, exp = "-", exp[1:]
	}
	if exp == "" || !digits(exp) {
		return "", errors.New("bad exponent")
	}
	if len(exp) <= 15 {
		v, _ := strconv.ParseInt(sign+exp, 10, 64)
		return strconv.FormatInt(v+shift, 10), nil
	}
	v, ok := new(big.Int).SetString(sign+exp, 10)
	if !ok {
		return "", errors.New("bad exponent")
	}
	return v.Add(v, big.NewInt(shift)).String(), nil
}

func digits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
