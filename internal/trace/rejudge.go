package trace

import (
	"encoding/json"
	"slices"
	"time"

	"github.com/cuonztech/agent-harness/internal/classify"
	"github.com/cuonztech/agent-harness/internal/judge"
	"github.com/cuonztech/agent-harness/internal/report"
	"github.com/cuonztech/agent-harness/internal/state"
)

// Options are the settings of a re-judging.
type Options struct {
	// Settings are the effective settings: the header's, with the ones
	// given on the command line replaced.
	Settings Settings
	// Reclassify recomputes the tool classification from the recorded
	// definitions (and re-derives each call's class); false keeps the
	// recorded classification (the settings that affect it are unchanged).
	Reclassify bool
	// Judge is the judge's configuration for Settings, with the plugins'
	// hooks (harness.Rejudge builds it as the proxy does): Rejudge sets its
	// Start and joins its PluginStatus (the plugins loaded for this
	// judging, nil without) with the recorded failures.
	Judge judge.Config
	// Classify is the classification chain for Settings and the plugins'
	// classifiers, used when Reclassify is set.
	Classify func(classify.Tool) classify.Result
	// DropPluginFailures leaves out the recorded plugin failures (the
	// plugins were replaced).
	DropPluginFailures bool
	// DisablePlugin, when set, disables a loaded plugin where the trace
	// records its disabling, so that from there on it is not asked, as in
	// the recorded session.
	DisablePlugin func(name, detail string)
	// RetryAfterMs, when positive, replaces the retry_after every recorded
	// injected 429 announced (the deadline that is checked).
	RetryAfterMs int64
}

// epoch is the start of a re-judged run; only differences of times matter.
var epoch = time.Unix(0, 0).UTC()

// Rejudge applies tr's events to a new judge under o and returns it with
// the report file's envelope (status "finished" when the session end was
// recorded, StatusInterrupted when the proxy was killed, "failed" after a
// failed start).
//
// The judge's plugin status (judge.Config.PluginStatus) joins the recorded
// plugin failures and those of the plugins loaded now: per plugin the
// larger count (version 2 records every failure, so a plugin that fails
// the same way again counts once; the sum for version 1, which recorded no
// equivalence failures), disabled when either says so, the recorded first
// detail before the new one. A plugin that failed in either run keeps the
// run from passing.
func Rejudge(tr *Trace, o Options) (*judge.Judge, report.FileMeta) {
	s := o.Settings
	kf := o.Judge.KeyFields
	recorded := &pluginLog{}
	jc := o.Judge
	jc.PluginStatus = func() []judge.PluginState {
		var now []judge.PluginState
		if o.Judge.PluginStatus != nil {
			now = o.Judge.PluginStatus()
		}
		return joinPluginStates(now, recorded.states, tr.Header.Version == 1)
	}
	jc.Start = epoch
	j := judge.New(jc)
	// Without its end line the run was interrupted (the proxy killed):
	// never "running", which a reader could take for a run still going.
	meta := report.FileMeta{Status: report.StatusInterrupted, Mode: s.Mode, Chaos: s.Chaos, Transport: tr.Header.Transport}
	if meta.Mode == "" {
		meta.Mode = "deterministic"
	}

	classifyTool := o.Classify
	listing := func(tools []Tool) []classify.Entry {
		out := make([]classify.Entry, 0, len(tools))
		for _, t := range tools {
			if !o.Reclassify {
				out = append(out, t.Entry)
			} else if e, ok := classify.EntryOf(t.Definition, classifyTool, kf.Match); ok {
				out = append(out, e)
			}
		}
		return out
	}
	// latest holds each tool's newest entry up to the current line; final
	// the newest of the whole trace (for a call the relay classified with
	// a listing whose line follows it). history makes each listing, and
	// each call, stricter by the listings before it, as the live catalog
	// does (classify.History, behaviour §4.8): a recorded trace of an
	// older writer is judged by that rule too.
	latest, final := map[string]classify.Entry{}, map[string]classify.Entry{}
	var history classify.History
	var current []classify.Entry
	var toolsSeen bool
	if o.Reclassify {
		var h classify.History
		for _, l := range tr.Lines {
			if l.Type == string(judge.EventTools) {
				for _, e := range merged(h.Apply(listing(l.Tools))) {
					final[e.Name] = e
				}
			}
		}
	}
	if len(tr.Header.Tools) > 0 {
		current, toolsSeen = history.Apply(listing(tr.Header.Tools)), true
		for _, e := range merged(current) {
			latest[e.Name] = e
		}
	}

	for i := range tr.Lines {
		l := &tr.Lines[i]
		at := epoch.Add(time.Duration(l.T))
		switch l.Type {
		case TypeStartupFailed:
			meta.Status, meta.StartupError = "failed", l.Detail
			continue
		case string(judge.EventEnd):
			if meta.Status != "failed" {
				meta.Status = "finished"
			}
		case TypePluginFailure:
			if o.DropPluginFailures {
				continue
			}
			if l.Disabled {
				recorded.disable(l.Plugin, l.Detail)
				if o.DisablePlugin != nil {
					o.DisablePlugin(l.Plugin, l.Detail)
				}
			} else {
				recorded.fail(l.Plugin, l.Detail)
			}
			continue
		}
		ev := eventOf(l, at)
		switch ev.Kind {
		case judge.EventTools:
			current, toolsSeen = history.Apply(listing(l.Tools)), true
			for _, e := range merged(current) {
				latest[e.Name] = e
			}
			// The writes as the pipeline reports them (pipeline.OnTools):
			// each entry classified write, in listing order; the reader
			// checked that a recorded line's writes are these.
			ev.Tools = nil
			for _, e := range current {
				if e.Class == classify.Write {
					ev.Tools = append(ev.Tools, e.Name)
				}
			}
		case judge.EventCall:
			if o.Reclassify && ev.Class != classify.Unknown {
				e, ok := latest[ev.Tool]
				if !ok {
					e, ok = final[ev.Tool]
				}
				if ok {
					ev.Class, ev.AcceptsKey, ev.Idempotent = e.Class, len(e.KeyFields) > 0, e.Idempotent
				}
			}
			s := history.Stricter(classify.Entry{Name: ev.Tool, Class: ev.Class, Idempotent: ev.Idempotent})
			ev.Class, ev.Idempotent = s.Class, s.Idempotent
		case judge.EventAnswer:
			if o.RetryAfterMs > 0 && ev.RetryAfterMs > 0 {
				ev.RetryAfterMs = o.RetryAfterMs
			}
		}
		j.Apply(ev)
	}
	if toolsSeen {
		meta.ToolClassification, _ = json.Marshal(current)
	}
	return j, meta
}

// eventOf is the judge event of a line.
func eventOf(l *Line, at time.Time) judge.Event {
	ev := judge.Event{
		Kind: judge.EventKind(l.Type), Time: at, Call: l.Call,
		Tool: l.Tool, Class: l.Class, AcceptsKey: l.AcceptsKey, Idempotent: l.Idempotent,
		Outcome: l.Outcome, Scenario: l.Scenario, Fault: l.Fault, RetryAfterMs: l.RetryAfterMs,
		ResponseDigest: l.ResponseDigest, Detail: l.Detail, Tools: l.Writes,
		Session: string(l.Session), Transport: l.Transport, OwnUpstream: l.OwnUpstream,
		RequestSeq: l.RequestSeq, TransportFault: l.TransportFault,
	}
	if ev.Kind == judge.EventState {
		ev.Detail = ""
		ev.State = &state.Snapshot{At: l.At, Counters: l.Counters, Invalid: l.Invalid, Error: l.Detail}
	}
	if ev.Kind == judge.EventCall && l.Params != nil {
		ev.Params = l.Params // _meta's tool-call id (duplicate.resentBy)
		// The relay takes params.arguments by its exact name and refuses
		// calls with a case variant of it, so this finds the same value.
		var p struct {
			Arguments json.RawMessage `json:"arguments"`
		}
		if json.Unmarshal(l.Params, &p) == nil {
			ev.Arguments = p.Arguments
		}
	}
	return ev
}

// pluginLog folds recorded plugin-failure lines into each plugin's state,
// as the plugin host keeps it: failures counted, the first detail kept,
// the disabling noted (its detail only when no failure came before).
type pluginLog struct{ states []judge.PluginState }

func (p *pluginLog) get(name string) *judge.PluginState {
	for i := range p.states {
		if p.states[i].Name == name {
			return &p.states[i]
		}
	}
	p.states = append(p.states, judge.PluginState{Name: name})
	return &p.states[len(p.states)-1]
}

func (p *pluginLog) fail(name, detail string) {
	st := p.get(name)
	st.Failures++
	if st.Failures == 1 {
		st.Detail = detail
	}
}

func (p *pluginLog) disable(name, detail string) {
	st := p.get(name)
	st.Disabled = true
	if st.Detail == "" {
		st.Detail = detail
	}
}

// joinPluginStates joins the loaded plugins' states (now, in load order)
// with the recorded ones (recorded plugins no longer loaded follow): see
// Rejudge. sum adds the counts instead of taking the larger.
func joinPluginStates(now, recorded []judge.PluginState, sum bool) []judge.PluginState {
	out := slices.Clone(now)
	for _, r := range recorded {
		i := slices.IndexFunc(out, func(s judge.PluginState) bool { return s.Name == r.Name })
		if i < 0 {
			out = append(out, r)
			continue
		}
		n := &out[i]
		switch {
		case sum:
			n.Failures += r.Failures
		case r.Failures > n.Failures:
			n.Failures = r.Failures
		}
		if r.Detail != "" && (r.Failures > 0 || n.Failures == 0) {
			n.Detail = r.Detail
		}
		n.Disabled = n.Disabled || r.Disabled
	}
	return out
}

// merged is one entry per tool name of a listing, merged as the live relay
// merges them (classify.NewListing): a tool listed twice with different
// classes is unclassified, and idempotent only when every definition says
// so. In listing order.
func merged(entries []classify.Entry) []classify.Entry {
	l := classify.NewListing(entries)
	out := make([]classify.Entry, 0, len(entries))
	seen := make(map[string]bool, len(entries))
	for _, e := range entries {
		if !seen[e.Name] {
			seen[e.Name] = true
			out = append(out, l.Lookup(e.Name))
		}
	}
	return out
}
