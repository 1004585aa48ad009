// Package canon gives a write call its operation identity (docs/behaviour.md §4.1):
// canonical JSON, exact numbers, key-field matching and the operation key.
//
// # Canonical JSON
//
// Canonical returns one byte string per JSON value, so that two values are the
// same operation exactly when their canonical forms are equal:
//
//   - no insignificant whitespace;
//   - object members sorted by the bytes of their decoded (unescaped) names;
//   - a name that occurs twice in one object: the last occurrence wins, as in
//     JavaScript's JSON.parse, Python's json and Go's encoding/json, so the
//     canonical form describes what a typical upstream executes;
//   - strings decoded and re-escaped minimally: only `"`, `\` and control
//     characters below U+0020 are escaped (\b \f \n \r \t, otherwise \u00xx in
//     lower-case hex); everything else, including U+2028, U+2029 and DEL, is
//     written as raw UTF-8;
//   - strings that are not valid Unicode are accepted and kept exact, since
//     they are valid JSON and an upstream executes them (JavaScript's
//     JSON.stringify writes a lone surrogate when it cuts an emoji in half):
//     an unpaired surrogate escape (\uD83D) is written as its \udxxx escape
//     in lower-case hex, which no valid character produces (a surrogate pair
//     becomes one supplementary character, written raw); an invalid UTF-8
//     byte is written verbatim, which no re-encoded valid character produces
//     either. So two strings have the same canonical form exactly when their
//     sequences of characters, lone surrogates and invalid bytes are equal:
//     "\ud800", the bytes ED A0 80 and "\ufffd" are three different strings;
//   - numbers in the canonical exact form below.
//
// # Numbers
//
// Two JSON numbers are the same value when their exact decimal values are
// equal. Numbers are never converted to float64: 9007199254740992 (2^53) and
// 9007199254740993 differ, and 0.1 is exactly one tenth. 12, 12.0, 1.2e1,
// 120e-1 and 12.000E+0 are all the value 12; -0, 0.0 and 0e7 are all 0. A
// number is reduced to sign, digit string D without leading or trailing zeros
// and a decimal exponent, and then written like ECMAScript's Number::toString
// (RFC 8785) but exactly: with k the position of the decimal point relative to
// the start of D,
//
//   - D followed by zeros when len(D) <= k <= 21 (1200, 100000000000000000000);
//   - D with a decimal point when 0 < k < len(D) (1.5, -123.456);
//   - "0." + zeros + D when -6 < k <= 0 (0.001);
//   - otherwise d[.ddd]e±n (1e21, 1.5e-7, 1e999999999); the exponent is never
//     expanded into digits, so huge exponents cost no memory.
//
// The number 12 and the string "12" are different values (behaviour §4.1).
//
// # Member names that differ only in letter case
//
// Member names compare exactly, but an upstream decoding with Go's
// encoding/json matches them case-insensitively (the last one wins), so
// {"room":"1","Room":"12"} and {"room":"2","Room":"12"} may both book room
// 12. Operation reports such a pair (Op.CaseClash: equal under Unicode
// simple case folding, strings.EqualFold, but not byte-identical; anywhere
// in the arguments except the top-level key fields and their values), so
// that the judge does not call the two calls different operations. The
// check reuses the writer's sorted member lists: pairwise for objects of up
// to 16 members (ASCII names of different lengths are rejected at once),
// with a map of folded names above that.
//
// # Depth and size
//
// The parser and the writer use explicit stacks, so 10,000-deep nesting (or
// deeper) cannot overflow the goroutine stack; memory is linear in the input.
package canon
