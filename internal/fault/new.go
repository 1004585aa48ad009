package fault

import (
	"errors"
	"fmt"
	"math"
	"time"
)

// Options configures the built-in faults. The zero value is valid for every
// scenario: F2 then announces DefaultRetryAfter, chaos uses seed 0 and never
// fires (error rate 0).
type Options struct {
	// RetryAfter is F2's retry_after; zero means DefaultRetryAfter. It must
	// be a whole number of seconds, at most MaxRetryAfter.
	RetryAfter time.Duration
	// Seed seeds chaos's draws.
	Seed uint64
	// ErrorRate is chaos's probability of a fault per call, 0–1.
	ErrorRate float64
}

// Names lists the built-in fault names accepted by New.
var Names = []string{"F1", "F2", "F3", "F4", "F5", "chaos"}

// ErrUnknown is returned by New for a name that is not built in.
var ErrUnknown = errors.New("unknown scenario")

// New returns the built-in fault called name: "F1" … "F5" (also lower
// case) or "chaos".
//
// # Errors
//
// ErrUnknown (wrapped) for another name; an error for a retry_after or error
// rate out of range.
func New(name string, opts Options) (Fault, error) {
	switch name {
	case "F1", "f1":
		return NewGhostWrite(), nil
	case "F2", "f2":
		ra := opts.RetryAfter
		if ra == 0 {
			ra = DefaultRetryAfter
		}
		if ra < time.Second || ra > MaxRetryAfter || ra%time.Second != 0 {
			return nil, fmt.Errorf("creating F2: retry_after %v is not a whole number of seconds from 1 to 86400", ra)
		}
		return NewRateLimit(ra), nil
	case "F3", "f3":
		return NewTruncatedJSON(), nil
	case "F4", "f4":
		return NewPassTwice(), nil
	case "F5", "f5":
		return NewServerError(), nil
	case "chaos":
		r := opts.ErrorRate
		if math.IsNaN(r) || r < 0 || r > 1 {
			return nil, fmt.Errorf("creating chaos: error rate %v is not between 0 and 1", r)
		}
		return NewChaos(opts.Seed, r), nil
	}
	return nil, fmt.Errorf("creating fault %q: %w", name, ErrUnknown)
}
