package plugin

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/cuonztech/agent-harness/internal/judge"
)

// maxKey bounds an operation key returned by a plugin.
const maxKey = 4 << 10

// Equivalence returns the plugin's equiv_key hook as a judge.Equivalence,
// or nil when the manifest does not declare it.
//
// Keys are namespaced "NAME:" + the plugin's key, so they never collide
// with the built-in key or another plugin's. On failure Key returns ok
// false and an error matching ErrHook (ErrDisabled once the plugin is
// disabled): the judge takes it as no opinion and falls back to the next
// equivalence, ultimately the built-in canonical key. The failure is
// counted in Status (the judge reads it through Set.PluginStatus) and
// passed to Options.OnFailure, like any other. The adapter implements
// judge.Namer.
func (p *Plugin) Equivalence() judge.Equivalence {
	if !p.manifest.Has(HookEquivKey) {
		return nil
	}
	return equivalence{p}
}

type equivalence struct{ p *Plugin }

// Name is the plugin's manifest name (judge.Namer).
func (e equivalence) Name() string { return e.p.Name() }

// equivKeyInput is ah_equiv_key's input.
type equivKeyInput struct {
	Tool      string          `json:"tool"`
	Arguments json.RawMessage `json:"arguments"`
	KeyFields []string        `json:"keyFields"`
}

// Key asks the plugin for the operation key of a write call.
func (e equivalence) Key(tool string, arguments json.RawMessage) (string, bool, error) {
	what := "equiv_key " + tool
	args, err := normalArgs(arguments)
	if err != nil {
		return "", false, e.p.fail(what, err)
	}
	input, err := json.Marshal(equivKeyInput{tool, args, e.p.opts.KeyFields})
	if err != nil {
		return "", false, e.p.fail(what, fmt.Errorf("encoding input: %w", err))
	}
	var key string
	var ok bool
	err = e.p.invoke(HookEquivKey, what, input, func(out []byte) error {
		if len(out) == 0 {
			return nil
		}
		var o struct {
			Key *string `json:"key"`
		}
		if err := decodeStrict(out, &o); err != nil {
			return err
		}
		if o.Key == nil {
			return fmt.Errorf(`output has no "key"`)
		}
		if len(*o.Key) > maxKey {
			return fmt.Errorf("key of %d bytes exceeds %d", len(*o.Key), maxKey)
		}
		key, ok = e.p.Name()+":"+*o.Key, true
		return nil
	})
	if err != nil {
		return "", false, err
	}
	return key, ok, nil
}

// normalArgs maps absent and null arguments to {} (behaviour §4.1) and checks
// the JSON.
func normalArgs(a json.RawMessage) (json.RawMessage, error) {
	t := bytes.TrimSpace(a)
	if len(t) == 0 || string(t) == "null" {
		return json.RawMessage("{}"), nil
	}
	if !json.Valid(t) {
		return nil, fmt.Errorf("arguments are not valid JSON")
	}
	return t, nil
}

// PairChecker returns the plugin's equiv_same hook as a judge.PairChecker,
// or nil when the manifest does not declare it. On failure Compare returns
// Different and an error matching ErrHook, which the judge takes as no
// opinion (the failure is counted as for Equivalence). The adapter
// implements judge.Namer.
func (p *Plugin) PairChecker() judge.PairChecker {
	if !p.manifest.Has(HookEquivSame) {
		return nil
	}
	return pairChecker{p}
}

type pairChecker struct{ p *Plugin }

// Name is the plugin's manifest name (judge.Namer).
func (c pairChecker) Name() string { return c.p.Name() }

// equivSameInput is ah_equiv_same's input.
type equivSameInput struct {
	Tool      string          `json:"tool"`
	Earlier   json.RawMessage `json:"earlier"`
	Later     json.RawMessage `json:"later"`
	KeyFields []string        `json:"keyFields"`
}

// Compare asks the plugin whether later is the same operation as earlier.
func (c pairChecker) Compare(tool string, earlier, later json.RawMessage) (judge.Sameness, string, error) {
	what := "equiv_same " + tool
	a, err := normalArgs(earlier)
	if err != nil {
		return judge.Different, "", c.p.fail(what, err)
	}
	b, err := normalArgs(later)
	if err != nil {
		return judge.Different, "", c.p.fail(what, err)
	}
	input, err := json.Marshal(equivSameInput{tool, a, b, c.p.opts.KeyFields})
	if err != nil {
		return judge.Different, "", c.p.fail(what, fmt.Errorf("encoding input: %w", err))
	}
	s, reason := judge.Different, ""
	err = c.p.invoke(HookEquivSame, what, input, func(out []byte) error {
		if len(out) == 0 {
			return nil
		}
		var o struct {
			Same   json.RawMessage `json:"same"`
			Reason string          `json:"reason"`
		}
		if err := decodeStrict(out, &o); err != nil {
			return err
		}
		switch string(bytes.TrimSpace(o.Same)) {
		case "true":
			s = judge.Same
		case "false":
			s = judge.Different
		case `"possible"`:
			s = judge.Possible
		default:
			return fmt.Errorf(`"same" is %s, want true, false or "possible"`, truncate(string(o.Same), 40))
		}
		reason = truncate(o.Reason, maxReason)
		if s != judge.Different {
			if reason == "" {
				reason = "plugin " + c.p.Name()
			} else {
				reason += " (plugin " + c.p.Name() + ")"
			}
		}
		return nil
	})
	if err != nil {
		return judge.Different, "", err
	}
	return s, reason, nil
}
