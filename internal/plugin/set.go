package plugin

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/tetratelabs/wazero"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/fault"
	"github.com/cuonztech/agent-harness/internal/judge"
)

// Set is the plugins of one run, in --plugin order. A nil *Set is an empty
// set: every method works and returns nothing.
type Set struct {
	plugins []*Plugin
	cache   wazero.CompilationCache
}

// LoadAll loads every path with one shared compilation cache. configs maps
// a plugin's manifest name to its configuration (--plugin-config
// NAME=JSON); a name no loaded plugin has is an error, as are two plugins
// with the same name or the same fault name. On any error nothing stays
// loaded.
func LoadAll(ctx context.Context, paths []string, configs map[string]json.RawMessage, opts Options) (*Set, error) {
	o, err := opts.resolve()
	if err != nil {
		return nil, err
	}
	s := &Set{cache: newCache(o)}
	used := map[string]bool{}
	faults := map[string]string{}
	for _, path := range paths {
		p, err := load(ctx, path, o, s.cache, func(name string) json.RawMessage {
			used[name] = true
			return configs[name]
		})
		if err != nil {
			_ = s.Close(ctx)
			return nil, err
		}
		s.plugins = append(s.plugins, p)
		if q := s.byName(p.Name()); q != p {
			_ = s.Close(ctx)
			return nil, fmt.Errorf("loading plugin %s: name %q is already used by %s", path, p.Name(), q.Path())
		}
		for _, f := range p.manifest.Faults {
			if other, ok := faults[f]; ok {
				_ = s.Close(ctx)
				return nil, fmt.Errorf("loading plugin %s: fault %q is already declared by plugin %s", path, f, other)
			}
			faults[f] = p.Name()
		}
	}
	var unknown []string
	for name := range configs {
		if !used[name] {
			unknown = append(unknown, name)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		_ = s.Close(ctx)
		return nil, fmt.Errorf("plugin configuration for %q: no loaded plugin has that name", unknown[0])
	}
	return s, nil
}

func (s *Set) byName(name string) *Plugin {
	for _, p := range s.plugins {
		if p.Name() == name {
			return p
		}
	}
	return nil
}

// Plugins returns the loaded plugins in load order.
func (s *Set) Plugins() []*Plugin {
	if s == nil {
		return nil
	}
	return slices.Clone(s.plugins)
}

// Classifiers returns the classify hooks in load order (the classification
// chain puts them after explicit flags, before annotations).
func (s *Set) Classifiers() []classify.Classifier { return hooksOf(s, (*Plugin).Classifier) }

// Equivalences returns the equiv_key hooks in load order (judge.Config).
func (s *Set) Equivalences() []judge.Equivalence { return hooksOf(s, (*Plugin).Equivalence) }

// PairCheckers returns the equiv_same hooks in load order (judge.Config).
func (s *Set) PairCheckers() []judge.PairChecker { return hooksOf(s, (*Plugin).PairChecker) }

// States returns the state hooks in load order (judge.StateConfig.Plugins).
func (s *Set) States() []judge.StateAttributor { return hooksOf(s, (*Plugin).State) }

// hooksOf is hook of each plugin of s in load order, without the nil
// interface of a plugin whose manifest does not declare it.
func hooksOf[H comparable](s *Set, hook func(*Plugin) H) []H {
	var out []H
	var none H
	for _, p := range s.Plugins() {
		if h := hook(p); h != none {
			out = append(out, h)
		}
	}
	return out
}

// Fault returns the plugin fault called name, or nil.
func (s *Set) Fault(name string) fault.Fault {
	for _, p := range s.Plugins() {
		for _, f := range p.faults {
			if f.name == name {
				return f
			}
		}
	}
	return nil
}

// FaultNames lists every plugin fault name in load order.
func (s *Set) FaultNames() []string {
	var out []string
	for _, p := range s.Plugins() {
		out = append(out, p.manifest.Faults...)
	}
	return out
}

// Status returns every plugin's status in load order.
func (s *Set) Status() []Status {
	var out []Status
	for _, p := range s.Plugins() {
		out = append(out, p.Status())
	}
	return out
}

// PluginStatus returns every plugin's health in load order
// (judge.Config.PluginStatus).
func (s *Set) PluginStatus() []judge.PluginState {
	var out []judge.PluginState
	for _, p := range s.Plugins() {
		out = append(out, p.Health())
	}
	return out
}

// Disable disables the plugin called name (Plugin.Disable); false when
// there is none or it was disabled already.
func (s *Set) Disable(name, detail string) bool {
	if s == nil {
		return false
	}
	if p := s.byName(name); p != nil {
		return p.Disable(detail)
	}
	return false
}

// ReportEntry is one element of the report file's "plugins" array.
type ReportEntry struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Status   string `json:"status"`
	Failures int64  `json:"failures"`
	Detail   string `json:"detail"`
}

// Report returns the report file's "plugins" entries; nil without plugins.
func (s *Set) Report() []ReportEntry {
	var out []ReportEntry
	for _, st := range s.Status() {
		out = append(out, ReportEntry{Name: st.Name, Version: st.Version, Status: st.State(),
			Failures: st.Failures, Detail: st.LastFailure})
	}
	return out
}

// ReportJSON is Report encoded for report.FileMeta.Plugins; nil without
// plugins (the field is then omitted).
func (s *Set) ReportJSON() json.RawMessage {
	r := s.Report()
	if r == nil {
		return nil
	}
	b, _ := json.Marshal(r)
	return b
}

// Close closes every plugin and the shared compilation cache.
func (s *Set) Close(ctx context.Context) error {
	if s == nil {
		return nil
	}
	var errs []error
	for _, p := range s.plugins {
		errs = append(errs, p.Close(ctx))
	}
	if s.cache != nil {
		errs = append(errs, s.cache.Close(ctx))
	}
	return errors.Join(errs...)
}
