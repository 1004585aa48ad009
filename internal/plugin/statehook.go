package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/cuonztech/agent-harness/internal/judge"
)

// State returns the plugin's state hook as a judge.StateAttributor, or nil
// when the manifest does not declare it.
//
// The answer is checked before the judge sees it: {"effects": {ID: N or
// null}} with one entry per operation asked and no other, each N an
// integer within ±2^53. Anything else — and a trap, the deadline, the
// memory cap, a disabled plugin — is a failure counted as for every hook
// (stderr, Status, circuit breaker); the judge then leaves every operation
// it asked about to the wire (behaviour §16.4). The adapter implements
// judge.Namer.
func (p *Plugin) State() judge.StateAttributor {
	if !p.manifest.Has(HookState) {
		return nil
	}
	return stateHook{p}
}

type stateHook struct{ p *Plugin }

// Name is the plugin's manifest name (judge.Namer).
func (s stateHook) Name() string { return s.p.Name() }

// Attribute asks the plugin for the effects of in's operations.
func (s stateHook) Attribute(in judge.StateInput) (map[string]*int64, error) {
	const what = "state"
	input, err := json.Marshal(in)
	if err != nil {
		return nil, s.p.fail(what, fmt.Errorf("encoding input: %w", err))
	}
	var effects map[string]*int64
	err = s.p.invoke(HookState, what, input, func(out []byte) error {
		effects, err = parseEffects(out, in)
		if err != nil {
			return err
		}
		return judge.CheckEffects(in, effects)
	})
	if err != nil {
		return nil, err
	}
	return effects, nil
}

// parseEffects reads ah_state's answer to in. No output is no opinion:
// every operation null.
func parseEffects(out []byte, in judge.StateInput) (map[string]*int64, error) {
	if len(bytes.TrimSpace(out)) == 0 {
		none := make(map[string]*int64, len(in.Operations))
		for _, op := range in.Operations {
			none[op.ID] = nil
		}
		return none, nil
	}
	var o struct {
		Effects map[string]json.RawMessage `json:"effects"`
	}
	if err := decodeStrict(out, &o); err != nil {
		return nil, err
	}
	if o.Effects == nil {
		return nil, fmt.Errorf(`output has no "effects" object`)
	}
	effects := make(map[string]*int64, len(o.Effects))
	for id, raw := range o.Effects {
		raw = bytes.TrimSpace(raw)
		if string(raw) == "null" {
			effects[id] = nil
			continue
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil || n > judge.MaxEffect || n < -judge.MaxEffect {
			return nil, fmt.Errorf("effect %.40s of operation %q is not an integer within ±2^53 or null", raw, id)
		}
		effects[id] = &n
	}
	return effects, nil
}
