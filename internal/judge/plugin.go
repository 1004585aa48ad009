package judge

import (
	"slices"

	"github.com/cuonztech/agent-harness/internal/report"
)

// PluginState is one plugin's health as the plugin host keeps it
// (Config.PluginStatus).
type PluginState struct {
	Name string
	// Failures counts the plugin's failed calls, of every hook; the
	// disabling is not one.
	Failures int
	// Detail is the first failure's detail (the disabling's when the
	// plugin was disabled without a failure).
	Detail string
	// Disabled: the host disabled the plugin after repeated failures; its
	// hooks then answer errors without running.
	Disabled bool
}

// pluginFault is a failure of a plugin the judge called that no plugin
// host saw, so the judge counts it itself: a panic, or an answer outside
// the interface (a Sameness that is none of the three).
type pluginFault string

func (f pluginFault) Error() string { return string(f) }

// noteFault counts err when it is a pluginFault (name and detail are
// computed only then); any other error is the host's to count.
func (j *Judge) noteFault(err error, name, detail func() string) {
	if _, ok := err.(pluginFault); !ok {
		return
	}
	n := name()
	for i := range j.faults {
		if j.faults[i].Plugin == n {
			j.faults[i].Failures++
			return
		}
	}
	j.faults = append(j.faults, report.PluginFailure{Plugin: n, Status: report.PluginStatusFailed, Failures: 1, Detail: detail()})
}

// pluginFailures returns report.pluginFailures: the plugins that failed or
// were disabled according to Config.PluginStatus, in the host's order, with
// the failures only the judge saw (noteFault) added. The verdict and the
// report of one encoding use one such snapshot.
func (j *Judge) pluginFailures() []report.PluginFailure {
	var out []report.PluginFailure
	if j.cfg.PluginStatus != nil {
		out = j.hostFailures()
	}
	for _, f := range j.faults {
		if i := slices.IndexFunc(out, func(p report.PluginFailure) bool { return p.Plugin == f.Plugin }); i >= 0 {
			out[i].Failures += f.Failures
			continue
		}
		out = append(out, f)
	}
	return out
}

// hostFailures is Config.PluginStatus as report entries.
func (j *Judge) hostFailures() []report.PluginFailure {
	var out []report.PluginFailure
	for _, s := range j.cfg.PluginStatus() {
		if s.Failures == 0 && !s.Disabled {
			continue
		}
		p := report.PluginFailure{Plugin: s.Name, Status: report.PluginStatusFailed, Failures: s.Failures, Detail: s.Detail}
		if p.Plugin == "" {
			p.Plugin = "unnamed plugin"
		}
		if s.Disabled {
			p.Status = report.PluginStatusDisabled
		}
		out = append(out, p)
	}
	return out
}

func pluginName(p any, fallback string) string {
	if n, ok := p.(Namer); ok {
		if s := n.Name(); s != "" {
			return s
		}
	}
	return fallback
}
