// Package neardup detects near-duplicate write calls (docs/behaviour.md §4.6): a later
// call whose arguments differ from an uncertain earlier attempt only by
// notation, which makes the run NOT_TESTED with
// POSSIBLE_DUPLICATE_DIFFERENT_ARGUMENTS. It is possible, not proven.
//
// # The similarity relation
//
// Two JSON values are similar when they are identical (canonically: key order
// and number notation do not matter, see package canon) or, recursively:
//
//   - number vs string: a string whose content (normalised as below) is a
//     JSON number matches a number of the same exact value ("12" ≈ 12,
//     "1e3" ≈ 1000, "12.50" ≈ 12.5);
//   - two strings that are both plain decimals without leading zeros
//     (-?(0|[1-9][0-9]*)(\.[0-9]+)?) match when their exact values are equal
//     ("129.00" ≈ "129"); "0012" ≉ "12", "+1250" ≉ "1250", "1e3" ≉ "1000";
//   - two strings match when they are equal after: removing invisible
//     characters (Unicode category Cf — zero-width space, soft hyphen, bidi
//     controls, BOM — and the variation selectors U+FE00–U+FE0F,
//     U+E0100–U+E01EF, U+180B–U+180D, U+180F), NFKC normalisation, full case
//     folding, NFKC again, and removing all white space. This covers letter
//     case, added/removed/changed white space ("DE89 3704 0044" ≈
//     "DE8937040044"), NFC/NFD/NFKC forms and invisible characters;
//   - two strings that read as dates (date.go: ISO 8601, dd.mm.yyyy,
//     mm/dd/yyyy and dd/mm/yyyy read both ways, month names, with or without
//     a time and zone) match when some reading of one is the same calendar
//     day as some reading of the other, or, when both carry a time, the
//     same instant (both zoned) or the same date and clock as written. A
//     bare date matches a date-time on its day as written. Strings are read
//     from their normalised text (below), so strings that normalise alike
//     read alike;
//   - null matches a string that normalises to "" (null ≈ "");
//   - strings that are not valid Unicode (canon keeps lone surrogate escapes
//     and invalid UTF-8 bytes exact) are normalised like any other: each
//     lone surrogate or invalid byte counts as U+FFFD, as Go's encoding/json
//     decodes it, and the valid parts are folded and normalised as above;
//   - arrays of the same length match when their elements can be paired
//     one-to-one with similar elements, in any order;
//   - objects with the same member names match when every member value is
//     similar; objects whose member names differ (fields added or omitted, at
//     any level, including objects inside arrays) match when they share at
//     least one member name and at least half of the shared members have
//     similar values. Member names compare exactly;
//   - members whose values carry nothing ("empty": null, or a string that
//     normalises to "") may be added or omitted even when no member is
//     shared: {"note":null} ≈ {} ≈ {"memo":""}, and such an object (or {})
//     matches null. Objects with no shared member and a non-empty value
//     ({"a":1} vs {"b":2}, a renamed field) still do not match.
//
// Not detected (by design, behaviour §4.6): punctuation changes, date
// notations other than those of date.go, changed values, arrays with added or removed elements (different lengths),
// renamed fields, fields moved into a sub-object unless the half rule still
// holds, booleans written as strings.
//
// The relation is symmetric: Similar(a, b) == Similar(b, a) (the two inputs
// are put in a fixed order, by their bytes, before comparing). Identical
// inputs, even invalid JSON, are always similar; otherwise invalid JSON is
// never similar to anything, and Compare reports it as Invalid, which
// callers should treat as a possible duplicate.
//
// # Use from the judge
//
// The judge imports this package (it calls Similar on the canonical
// arguments without key fields), so this package cannot import the judge:
// the judge.PairChecker adapter lives in the judge. Compare and CompareArgs
// give the undecided case and a Reason sentence naming the transformation
// kinds for the report.
//
// # Cost, depth and known failures
//
// Parsing and hashing are iterative and linear. The comparison recurses at
// most MaxDepth (256) levels; below that depth values are not compared:
// canonically identical ones (a 64-bit hash of their canonical form) are
// similar, and different ones are assumed similar, so that a comparison
// that finds nothing else different is undecided (Result.TooDeep), never
// "different" (behaviour §4.6: at any depth). Array elements are paired in stages, each at most O(n·m)
// and most O(n log n): (1) identical elements at the same position, (2)
// identical elements anywhere (sorted by canonical hash), (3) elements whose
// normalised hashes are equal (sorted; each candidate pair checked), (4)
// similar elements at the same position, (5) greedy first fit over what is
// left. Each pair of elements is compared at most once per pair of parent
// arrays, so nested arrays stay polynomial; a pair is rejected at once when
// an invariant hash that similar values always share (scalars normalised,
// arrays as multisets, objects, null and empty strings alike, all dates
// alike) differs; the whole comparison also has
// a budget of Budget steps. Known failures:
//
//   - greedy pairing is not maximum matching: when elements were reordered
//     AND modified so that one element is similar to several others, a valid
//     pairing can be missed (a false "not similar");
//   - an array of objects that were reordered and had fields added or
//     omitted defeats the hashing stages and falls back to the greedy stage;
//   - when the budget runs out the answer is undecided: Similar returns
//     false and Compare reports Undecided, which callers should treat as a
//     possible duplicate (when in doubt, NOT_TESTED);
//   - a 64-bit hash collision between different values would make them count
//     as identical (probability about 2^-64 per pair).
package neardup
