package fault

import (
	"errors"
	"fmt"
	"slices"
	"strings"
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

// Builtin is one built-in fault as the rest of the tool sees it. Each
// fault's file registers its own (register, from init, as toxiproxy's
// toxics do); the flag parsers, the benchmark, the campaign, the demo
// server, the plugin manifest check and the public builtin/scenarios
// package all ask Builtins, Scenarios or Lookup instead of listing names.
type Builtin struct {
	// Name is the --scenario name ("F1"…) or "chaos".
	Name string
	// Mode is true for a fault selected with --mode (chaos) instead of
	// --scenario; such a fault is not one of Scenarios.
	Mode bool
	// Kind is the fault kind the report names (KindTimeout, …); "" for a
	// fault that injects nothing (F4).
	Kind string
	// Text is the text of the injected result's content item (F2's with
	// DefaultRetryAfter); "" for F4.
	Text string
	// FiresOn says which calls it applies to.
	FiresOn string
	// Executes is true when a call it fires on reaches the upstream and
	// executes (F1's ghost write, F4's passed writes).
	Executes bool
	// ResendFails is true when an agent that re-sends the failed call at
	// once, without a key, must get FAIL (the benchmark's naive agent,
	// behaviour §10): the re-send executes a second time or comes before
	// retry_after.
	ResendFails bool
	// Brief is the demo server's list_scenarios entry.
	Brief Brief
	// New builds an armed instance; opts are checked here.
	New func(opts Options) (Fault, error)
}

// Brief is the short description of a scenario for a caller reading a tool
// list (the demo server's list_scenarios).
type Brief struct {
	FiresOn     string
	WhatHappens string
	FailIf      string
}

// registry holds the built-ins in name order: F1 … F5, then chaos (upper
// case sorts before lower case).
var registry []Builtin

// register adds b; it is called from the init function of the file that
// implements b.
func register(b Builtin) {
	if b.Name == "" || b.New == nil || slices.ContainsFunc(registry, func(have Builtin) bool { return sameName(have.Name, b.Name) }) {
		panic("fault: registering built-in " + b.Name + " twice or incomplete")
	}
	registry = append(registry, b)
	slices.SortFunc(registry, func(a, b Builtin) int { return strings.Compare(a.Name, b.Name) })
}

// Builtins returns every built-in fault in order: the scenarios, then the
// modes.
func Builtins() []Builtin { return slices.Clone(registry) }

// Names returns the names of all built-in faults, scenarios and modes.
func Names() []string {
	names := make([]string, len(registry))
	for i, b := range registry {
		names[i] = b.Name
	}
	return names
}

// Scenarios returns the names selected with --scenario, in order ("F1" …
// "F5"): the default set of the benchmark and the campaign.
func Scenarios() []string {
	var names []string
	for _, b := range registry {
		if !b.Mode {
			names = append(names, b.Name)
		}
	}
	return names
}

// ScenarioRange names the scenarios as messages and flag help write them:
// "F1–F5".
func ScenarioRange() string {
	s := Scenarios()
	return s[0] + "–" + s[len(s)-1]
}

// Lookup returns the built-in whose name is name in any case ("f1", "F1",
// "CHAOS"); compare the returned Name with name for an exact match.
func Lookup(name string) (Builtin, bool) {
	for _, b := range registry {
		if sameName(b.Name, name) {
			return b, true
		}
	}
	return Builtin{}, false
}

// IsScenario reports whether name is exactly (upper case) one of Scenarios.
func IsScenario(name string) bool {
	b, ok := Lookup(name)
	return ok && !b.Mode && b.Name == name
}

// sameName compares names as a plugin's fault names are checked against
// the built-ins: case-folded (also "chaoſ" is "chaos").
func sameName(a, b string) bool { return strings.EqualFold(a, b) }

// ErrUnknown is returned by New for a name that is not built in.
var ErrUnknown = errors.New("unknown scenario")

// New returns the built-in fault called name: a registered Name or that
// name in lower case ("F1" or "f1", "chaos").
//
// # Errors
//
// ErrUnknown (wrapped) for another name; an error for a retry_after or error
// rate out of range.
func New(name string, opts Options) (Fault, error) {
	if b, ok := Lookup(name); ok && (name == b.Name || name == strings.ToLower(b.Name)) {
		return b.New(opts)
	}
	return nil, fmt.Errorf("creating fault %q: %w", name, ErrUnknown)
}
