package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The pflag.Value types of the flags whose values have a range or a list
// shape. Each Set returns the problem without the flag's name; flagSet
// puts "flag --NAME: " in front (checkedValue).

// intValue is a whole number from lo to hi (in unit).
type intValue struct {
	p      *int
	lo, hi int
	unit   string
}

func (v intValue) Set(s string) error {
	n, err := intInRange(s, v.lo, v.hi, v.unit)
	*v.p = n
	return err
}
func (v intValue) String() string { return strconv.Itoa(*v.p) }
func (intValue) Type() string     { return "int" }

// durationValue is a Go duration from lo to hi (rng names the range in
// messages).
type durationValue struct {
	p      *time.Duration
	lo, hi time.Duration
	rng    string
}

func (v durationValue) Set(s string) error {
	d, err := durationInRange(s, v.lo, v.hi, v.rng)
	*v.p = d
	return err
}
func (v durationValue) String() string { return v.p.String() }
func (durationValue) Type() string     { return "duration" }

// commaValue is a list flag of comma-separated elements: the first use
// replaces the default, later ones append. trim removes spaces around
// elements (globs and names, not arguments or environment values).
type commaValue struct {
	p       *[]string
	trim    bool
	changed bool
}

func (v *commaValue) Set(s string) error {
	items, err := commaList(s, v.trim)
	if !v.changed {
		*v.p, v.changed = nil, true
	}
	*v.p = append(*v.p, items...)
	return err
}
func (v *commaValue) String() string { return strings.Join(*v.p, ",") }
func (*commaValue) Type() string     { return "strings" }

// funcValue is a flag whose value one function checks and stores.
type funcValue func(string) error

func (f funcValue) Set(s string) error { return f(s) }
func (funcValue) String() string       { return "" }
func (funcValue) Type() string         { return "string" }

// choiceValue is one of words in any case, stored in lower case; what
// names the choices in the error (`"x" is not WHAT`).
func choiceValue(p *string, what string, words ...string) funcValue {
	return func(v string) error {
		if l := strings.ToLower(v); slices.Contains(words, l) {
			*p = l
			return nil
		}
		return fmt.Errorf("%q is not %s", v, what)
	}
}

// onOffValue is on or off in any case; set gets true for on.
func onOffValue(set func(on bool)) funcValue {
	return func(v string) error {
		switch strings.ToLower(v) {
		case "on":
			set(true)
		case "off":
			set(false)
		default:
			return fmt.Errorf("%q is not on or off", v)
		}
		return nil
	}
}

// commaList splits a comma-separated value; an empty element is an error.
// trim removes spaces around elements (globs and names, not arguments or
// environment values).
func commaList(v string, trim bool) ([]string, error) {
	items := strings.Split(v, ",")
	for i, item := range items {
		if trim {
			item = strings.TrimSpace(item)
			items[i] = item
		}
		if item == "" {
			return nil, fmt.Errorf("empty element in %q", v)
		}
	}
	return items, nil
}

func intInRange(v string, lo, hi int, unit string) (int, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	switch {
	case errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("%s is out of range (%d–%d %s)", v, lo, hi, unit)
	case err != nil:
		return 0, fmt.Errorf("%q is not a whole number of %s", v, unit)
	case n < int64(lo) || n > int64(hi):
		return 0, fmt.Errorf("%s is out of range (%d–%d %s)", v, lo, hi, unit)
	}
	return int(n), nil
}

func durationInRange(v string, lo, hi time.Duration, rng string) (time.Duration, error) {
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration (e.g. 100ms, 2s)", v)
	}
	if d < lo || d > hi {
		return 0, fmt.Errorf("%s is out of range (%s)", v, rng)
	}
	return d, nil
}
