package sdk

import (
	"encoding/json"
	"slices"

	"github.com/cuonztech/agent-harness/sdk/abi"
)

// Plugin is what a plugin registers: its name and version and the hooks it
// implements (nil hooks are not declared in the manifest).
type Plugin struct {
	// Name identifies the plugin (--plugin-config NAME=JSON, reports):
	// 1–64 characters a-z, 0-9, '_' or '-'.
	Name string
	// Version is free text, e.g. "0.1.0".
	Version string
	// Init receives the configuration (JSON null when none was given). It
	// runs once per instance, so it must be deterministic. An error makes
	// the load fail with "init failed: …".
	Init func(config json.RawMessage) error
	// Classify classifies a tool; ok false means no opinion.
	Classify func(Tool) (c Classification, ok bool, err error)
	// EquivKey returns the operation key of a write call: two calls of the
	// same tool with the same key are the same operation. ok false means no
	// opinion (the next equivalence decides). The key replaces the built-in
	// one, so it must never separate calls the built-in key treats as equal
	// (key fields stripped, object key order, exact number value).
	EquivKey func(Call) (key string, ok bool, err error)
	// EquivSame compares a later call with an earlier uncertain attempt.
	EquivSame func(Pair) (s Sameness, reason string, err error)
	// Faults maps each fault name (selected with --scenario NAME) to its
	// decision function.
	Faults map[string]FaultFunc
}

var registered *Plugin

// Register registers the plugin. Call it once, from an init function.
func Register(p Plugin) {
	registered = &p
}

// manifest is the ah_manifest answer.
type manifest struct {
	ABI     int      `json:"abi"`
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Hooks   []string `json:"hooks"`
	Faults  []string `json:"faults,omitempty"`
}

// ABIVersion is the ABI major version this SDK implements.
const ABIVersion = abi.Version

func (p *Plugin) manifest() manifest {
	m := manifest{ABI: ABIVersion, Name: p.Name, Version: p.Version, Hooks: []string{}}
	if p.Classify != nil {
		m.Hooks = append(m.Hooks, HookClassify)
	}
	if p.EquivKey != nil {
		m.Hooks = append(m.Hooks, HookEquivKey)
	}
	if p.EquivSame != nil {
		m.Hooks = append(m.Hooks, HookEquivSame)
	}
	if len(p.Faults) > 0 {
		m.Hooks = append(m.Hooks, HookFault)
		for name := range p.Faults {
			m.Faults = append(m.Faults, name)
		}
		slices.Sort(m.Faults)
	}
	return m
}
